#include "agents/anthropic_provider.h"

#include <fmt/format.h>

#include <chrono>
#include <nlohmann/json.hpp>
#include <string>
#include <utility>
#include <vector>

namespace headway::agents {

namespace {

constexpr ProviderIdentity kAnthropic{"anthropic", AnthropicProvider::kKeyEnv};

}  // namespace

AnthropicProvider::AnthropicProvider(ProviderOptions options) : options_(std::move(options)) {}

ProviderOptions anthropic_options_from_env(std::string model, std::string base_url) {
  ProviderOptions options;
  options.model = std::move(model);
  options.base_url = std::move(base_url);
  options.api_key = env_or_empty(AnthropicProvider::kKeyEnv);
  return options;
}

AgentReply AnthropicProvider::complete(const AgentRequest& request) {
  const auto start = std::chrono::steady_clock::now();
  const std::string url = endpoint(options_.base_url, kDefaultBaseUrl, "/messages");
  nlohmann::json body = {
      {"model", options_.model},
      {"max_tokens", request.max_tokens},
      {"messages", nlohmann::json::array({{{"role", "user"}, {"content", request.prompt}}})}};
  if (!request.system.empty()) body["system"] = request.system;
  std::vector<std::string> headers = {fmt::format("anthropic-version: {}", kApiVersion)};
  if (!options_.api_key.empty()) headers.push_back("x-api-key: " + options_.api_key);

  const ProviderPost post = post_with_retries(kAnthropic, options_, url, headers, body.dump());
  const auto fail = [&](const std::string& why) {
    return malformed_reply(kAnthropic, options_, url, post.response, why);
  };
  const auto json = nlohmann::json::parse(post.response.body, nullptr, false);
  if (json.is_discarded() || !json.is_object()) throw fail("not a JSON object");
  const auto content = json.find("content");
  if (content == json.end() || !content->is_array()) throw fail("no content array");

  AgentReply reply;
  for (const auto& block : *content) {
    if (!block.is_object()) throw fail("a content block is not an object");
    if (block.value("type", "") != "text") continue;
    const auto text = block.find("text");
    if (text == block.end() || !text->is_string()) throw fail("a text block has no text");
    reply.text += text->get<std::string>();
  }
  reply.model = json.contains("model") && json["model"].is_string()
                    ? json["model"].get<std::string>()
                    : options_.model;
  if (const auto usage = json.find("usage"); usage != json.end() && usage->is_object()) {
    reply.input_tokens = usage->value("input_tokens", int64_t{0});
    reply.output_tokens = usage->value("output_tokens", int64_t{0});
  }
  const auto stop = json.find("stop_reason");
  reply.truncated = stop != json.end() && stop->is_string() && *stop == "max_tokens";
  reply.attempts = post.attempts;
  reply.latency_s = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  return reply;
}

}  // namespace headway::agents
