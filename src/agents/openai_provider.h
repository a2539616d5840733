#pragma once
// The OpenAI-compatible chat completions API (POST {base_url}/chat/completions): OpenAI itself
// and local servers that speak it (vLLM, llama.cpp, Ollama at e.g. http://127.0.0.1:8000/v1).
// Failures map as http_provider.h says.
#include <atomic>
#include <string>

#include "agents/http_provider.h"

namespace headway::agents {

class OpenAiProvider : public HttpChatProvider {
 public:
  static constexpr ProviderIdentity kIdentity{"openai", "OPENAI_API_KEY",
                                              "https://api.openai.com/v1"};

  // Sends `Authorization: Bearer <api_key>` only where options.api_key is not empty.
  explicit OpenAiProvider(ProviderOptions options);

  // The request's system prompt (where not empty) and prompt as the system and user messages;
  // request.files are not sent. The reply's text is choices[0].message.content (a null content
  // reads as ""), truncated where finish_reason is "length".
  //
  // request.max_tokens goes out as token_limit_field(base URL). A 400 whose message names either
  // field (OpenAI's reasoning models refuse "max_tokens"; older servers do not know
  // "max_completion_tokens") is answered by one more request with the other field; where that
  // one succeeds, this provider keeps using it. Where it fails too, its error is the call's.
  AgentReply complete(const AgentRequest& request) override;

 private:
  std::atomic<bool> completion_tokens_;  // send "max_completion_tokens", not "max_tokens"
};

// The field that carries the answer's token limit to `base_url` at first: "max_completion_tokens"
// for OpenAI's own API (empty: the default), which has deprecated "max_tokens"; "max_tokens",
// which every compatible server knows, elsewhere.
std::string token_limit_field(const std::string& base_url);

}  // namespace headway::agents
