#include "agents/openai_provider.h"

#include <chrono>
#include <nlohmann/json.hpp>
#include <string>
#include <utility>
#include <vector>

namespace headway::agents {

namespace {

constexpr ProviderIdentity kOpenAi{"openai", OpenAiProvider::kKeyEnv};

}  // namespace

std::string token_limit_field(const std::string& base_url) {
  const bool openai = base_url.empty() || base_url.rfind("https://api.openai.com/", 0) == 0 ||
                      base_url == "https://api.openai.com";
  return openai ? "max_completion_tokens" : "max_tokens";
}

OpenAiProvider::OpenAiProvider(ProviderOptions options)
    : options_(std::move(options)),
      completion_tokens_(token_limit_field(options_.base_url) == "max_completion_tokens") {}

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
  const auto body = [&](const char* limit_field) {
    return nlohmann::json{
        {"model", options_.model}, {"messages", messages}, {limit_field, request.max_tokens}}
        .dump();
  };
  std::vector<std::string> headers;
  if (!options_.api_key.empty()) headers.push_back("Authorization: Bearer " + options_.api_key);

  const bool completion_tokens = completion_tokens_.load();
  const char* field = completion_tokens ? "max_completion_tokens" : "max_tokens";
  const char* other = completion_tokens ? "max_tokens" : "max_completion_tokens";
  ProviderPost post;
  try {
    post = post_with_retries(kOpenAi, options_, url, headers, body(field));
  } catch (const AgentError& e) {
    if (e.kind() != AgentError::Kind::kBadRequest) throw;
    const std::string why = e.what();
    if (why.find("max_tokens") == std::string::npos &&
        why.find("max_completion_tokens") == std::string::npos) {
      throw;
    }
    post = post_with_retries(kOpenAi, options_, url, headers, body(other));
    completion_tokens_.store(!completion_tokens);
  }
  const auto fail = [&](const std::string& why) {
    return malformed_reply(kOpenAi, options_, url, post.response, why);
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
