#include "agents/anthropic_provider.h"

#include <fmt/format.h>

#include <chrono>
#include <nlohmann/json.hpp>
#include <string>
#include <utility>
#include <vector>

namespace headway::agents {

AnthropicProvider::AnthropicProvider(ProviderOptions options)
    : HttpChatProvider(kIdentity, std::move(options)) {}

AgentReply AnthropicProvider::complete(const AgentRequest& request) {
  const auto start = std::chrono::steady_clock::now();
  const std::string url = url_of("/messages");
  nlohmann::json body = {
      {"model", options_.model},
      {"max_tokens", request.max_tokens},
      {"messages", nlohmann::json::array({{{"role", "user"}, {"content", request.prompt}}})}};
  if (!request.system.empty()) body["system"] = request.system;
  std::vector<std::string> headers = {fmt::format("anthropic-version: {}", kApiVersion)};
  if (!options_.api_key.empty()) headers.push_back("x-api-key: " + options_.api_key);

  const ProviderPost sent = post(url, headers, body.dump());
  const nlohmann::json json = reply_object(url, sent);
  const auto content = json.find("content");
  if (content == json.end() || !content->is_array()) throw malformed(url, sent, "no content array");

  AgentReply reply;
  for (const auto& block : *content) {
    if (!block.is_object()) throw malformed(url, sent, "a content block is not an object");
    if (block.value("type", "") != "text") continue;
    const auto text = block.find("text");
    if (text == block.end() || !text->is_string()) {
      throw malformed(url, sent, "a text block has no text");
    }
    reply.text += text->get<std::string>();
  }
  const auto stop = json.find("stop_reason");
  reply.truncated = stop != json.end() && stop->is_string() && *stop == "max_tokens";
  read_common(json, "input_tokens", "output_tokens", sent, start, &reply);
  return reply;
}

}  // namespace headway::agents
