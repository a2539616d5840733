#pragma once
// The OpenAI-compatible chat completions API (POST {base_url}/chat/completions): OpenAI itself
// and local servers that speak it (vLLM, llama.cpp, Ollama at e.g. http://127.0.0.1:8000/v1).
// Failures map as http_provider.h says.
#include <string>

#include "agents/agent.h"
#include "agents/http_provider.h"

namespace headway::agents {

class OpenAiProvider : public Agent {
 public:
  static constexpr const char* kDefaultBaseUrl = "https://api.openai.com/v1";
  static constexpr const char* kKeyEnv = "OPENAI_API_KEY";

  // Sends `Authorization: Bearer <api_key>` only where options.api_key is not empty.
  explicit OpenAiProvider(ProviderOptions options);

  std::string provider() const override { return "openai"; }
  std::string model() const override { return options_.model; }
  // The request's system prompt (where not empty) and prompt as the system and user messages;
  // request.files are not sent. The reply's text is choices[0].message.content (a null content
  // reads as ""), truncated where finish_reason is "length".
  AgentReply complete(const AgentRequest& request) override;

 private:
  ProviderOptions options_;
};

// Options for `model` at `base_url` (empty: kDefaultBaseUrl) with the key from $OPENAI_API_KEY
// (none where unset) and the default timeout and retries.
ProviderOptions openai_options_from_env(std::string model, std::string base_url = "");

}  // namespace headway::agents
