#pragma once
// What the HTTP chat providers (openai_provider.h, anthropic_provider.h) share: their options,
// the POST with retries, and the mapping of HTTP failures to AgentError kinds.
//
// Mapping: 401/403 → kAuth, 404 or an error whose type/code says the model is unknown →
// kUnknownModel, any other status outside 2xx that is not retried → kBadRequest; all at once,
// without retries. 429, 5xx and connection failures are retried under the RetryPolicy and end
// in kTransient, timeouts likewise end in kTimeout (when the last attempt timed out). Messages
// quote the provider's own error message (shortened) and never contain the API key.
#include <string>
#include <vector>

#include "agents/agent.h"
#include "agents/http_client.h"
#include "agents/retry_policy.h"

namespace headway::agents {

struct ProviderOptions {
  std::string base_url;  // e.g. "http://127.0.0.1:8000/v1"; empty: the provider's default
  std::string model;
  std::string api_key;     // empty: no key is sent (local servers need none)
  Seconds timeout{300.0};  // per attempt, connection included
  RetryPolicy retry;
};

// Who is calling, for messages: the provider's name and the variable its key comes from.
struct ProviderIdentity {
  const char* provider;  // "openai"
  const char* key_env;   // "OPENAI_API_KEY"
};

struct ProviderPost {
  HttpResponse response;  // a 2xx response
  int attempts = 1;
};

// POSTs `body` to `url` with `headers` until a 2xx answer, under options.retry and
// options.timeout. Throws AgentError as the file comment says.
ProviderPost post_with_retries(const ProviderIdentity& who, const ProviderOptions& options,
                               const std::string& url, const std::vector<std::string>& headers,
                               const std::string& body);

// The kMalformed error for a 2xx `response` that is not the protocol: `why`, and the start of
// the body.
AgentError malformed_reply(const ProviderIdentity& who, const ProviderOptions& options,
                           const std::string& url, const HttpResponse& response,
                           const std::string& why);

// `base_url` (default_base_url where empty) without trailing '/' followed by `path` ("/...").
std::string endpoint(const std::string& base_url, const std::string& default_base_url,
                     const std::string& path);

// The environment variable's value, or "" where it is unset.
std::string env_or_empty(const char* name);

// `text` with every occurrence of `secret` (when not empty) replaced by "[redacted]".
std::string redact(std::string text, const std::string& secret);

// `text` cut to at most `limit` bytes (on a UTF-8 boundary) with "..." appended when cut.
std::string shorten(const std::string& text, size_t limit = 300);

}  // namespace headway::agents
