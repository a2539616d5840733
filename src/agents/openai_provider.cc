#include "agents/openai_provider.h"

#include <chrono>
#include <nlohmann/json.hpp>
#include <string>
#include <utility>
#include <vector>

namespace headway::agents {

std::string token_limit_field(const std::string& base_url) {
  const bool openai = base_url.empty() || base_url.rfind("https://api.openai.com/", 0) == 0 ||
                      base_url == "https://api.openai.com";
  return openai ? "max_completion_tokens" : "max_tokens";
}

OpenAiProvider::OpenAiProvider(ProviderOptions options)
    : HttpChatProvider(kIdentity, std::move(options)),
      completion_tokens_(token_limit_field(options_.base_url) == "max_completion_tokens") {}

AgentReply OpenAiProvider::complete(const AgentRequest& request) {
  const auto start = std::chrono::steady_clock::now();
  const std::string url = url_of("/chat/completions");
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
  ProviderPost sent;
  try {
    sent = post(url, headers, body(field));
  } catch (const AgentError& e) {
    if (e.kind() != AgentError::Kind::kBadRequest) throw;
    const std::string why = e.what();
    if (why.find("max_tokens") == std::string::npos &&
        why.find("max_completion_tokens") == std::string::npos) {
      throw;
    }
    sent = post(url, headers, body(other));
    completion_tokens_.store(!completion_tokens);
  }
  const auto fail = [&](const std::string& why) { return malformed(url, sent, why); };
  const nlohmann::json json = reply_object(url, sent);
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
  const auto finish = choice.find("finish_reason");
  reply.truncated = finish != choice.end() && finish->is_string() && *finish == "length";
  read_common(json, "prompt_tokens", "completion_tokens", sent, start, &reply);
  return reply;
}

}  // namespace headway::agents
