#pragma once
// The Anthropic messages API (POST {base_url}/messages, anthropic-version 2023-06-01). Failures
// map as http_provider.h says; Anthropic's 529 (overloaded) is retried like any 5xx.
#include <string>

#include "agents/http_provider.h"

namespace headway::agents {

class AnthropicProvider : public HttpChatProvider {
 public:
  static constexpr ProviderIdentity kIdentity{"anthropic", "ANTHROPIC_API_KEY",
                                              "https://api.anthropic.com/v1"};
  static constexpr const char* kApiVersion = "2023-06-01";

  // Sends `x-api-key: <api_key>` only where options.api_key is not empty.
  explicit AnthropicProvider(ProviderOptions options);

  // The request's system prompt (where not empty) as `system` and the prompt as the one user
  // message; request.files are not sent. The reply's text is the concatenated text blocks of
  // content[], truncated where stop_reason is "max_tokens".
  AgentReply complete(const AgentRequest& request) override;
};

}  // namespace headway::agents
