#include "agents/openai_provider.h"

#include <chrono>
#include <nlohmann/json.hpp>
#include <string>
#include <utility>
#include <vector>

namespace headway::agents {

namespace {

constexpr ProviderIdentity kWho{"openai", OpenAiProvider::kKeyEnv};

}  // namespace

OpenAiProvider::OpenAiProvider(ProviderOptions options) : options_(std::move(options)) {}

ProviderOptions openai_options_from_env(std::string model, std::string base_url) {
  ProviderOptions options;
  options.model = std::move(model);
  options.base_url = std::move(base_url);
  options.api_key = env_or_empty(OpenAiProvider::kKeyEnv);
  return options;
}

AgentReply OpenAiProvider::complete(const AgentRequest& request) {
  const auto start = std::chrono::steady_clock::now();
  const std::string url = endpoint(options_.base_url, kDefaultBaseUrl, "/chat/completions");
  nlohmann::json messages = nlohmann::json::array();
  if (!request.system.empty()) {
    messages.push_back({{"role", "system"}, {"content", request.system}});
  }
  messages.push_back({{"role", "user"}, {"content", request.prompt}});
  const nlohmann::json body = {
      {"model", options_.model}, {"messages", messages}, {"max_tokens", request.max_tokens}};
  std::vector<std::string> headers;
  if (!options_.api_key.empty()) headers.push_back("Authorization: Bearer " + options_.api_key);

  const ProviderPost post = post_with_retries(kWho, options_, url, headers, body.dump());
  const auto fail = [&](const std::string& why) {
    return malformed_reply(kWho, options_, url, post.response, why);
  };
  const auto json = nlohmann::json::parse(post.response.body, nullptr, false);
  if (json.is_discarded() || !json.is_object()) throw fail("not a JSON object");
  const auto choices = json.find("choices");
  if (choices == json.end() || !choices->is_array() || choices->empty()) {
    throw fail("no choices");
  }
  const auto& choice = choices->front();
  if (!choice.is_object() || !choice.contains("message") || !choice["message"].is_object()) {
    throw fail("choices[0] has no message");
  }
  const auto& message = choice["message"];
  const auto content = message.find("content");
  if (content == message.end() || !(content->is_string() || content->is_null())) {
    throw fail("choices[0].message has no content");
  }

  AgentReply reply;
  if (content->is_string()) reply.text = content->get<std::string>();
  reply.model = json.contains("model") && json["model"].is_string()
                    ? json["model"].get<std::string>()
                    : options_.model;
  if (const auto usage = json.find("usage"); usage != json.end() && usage->is_object()) {
    reply.input_tokens = usage->value("prompt_tokens", int64_t{0});
    reply.output_tokens = usage->value("completion_tokens", int64_t{0});
  }
  const auto finish = choice.find("finish_reason");
  reply.truncated = finish != choice.end() && finish->is_string() && *finish == "length";
  reply.attempts = post.attempts;
  reply.latency_s = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  return reply;
}

}  // namespace headway::agents
