#pragma once
// What the HTTP chat providers (openai_provider.h, anthropic_provider.h) share: their options,
// the POST with retries, the mapping of HTTP failures to AgentError kinds, and the base class
// that reads the parts of a reply every protocol has.
//
// Mapping: 401/403 → kAuth, 404 or an error whose type/code says the model is unknown →
// kUnknownModel, any other status outside 2xx that is not retried → kBadRequest; all at once,
// without retries. 429, 5xx and connection failures are retried under the RetryPolicy and end
// in kTransient, timeouts likewise end in kTimeout (when the last attempt timed out). Messages
// quote the provider's own error message (shortened) and never contain the API key.
#include <chrono>
#include <nlohmann/json_fwd.hpp>
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

// Who is calling: the provider's name (for messages), the variable its key comes from and the
// base URL it calls where the options name none.
struct ProviderIdentity {
  const char* provider;          // "openai"
  const char* key_env;           // "OPENAI_API_KEY"
  const char* default_base_url;  // "https://api.openai.com/v1"
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

// Options for `model` at `base_url` (empty: who.default_base_url) with the key from the
// environment variable who.key_env (none where unset) and the default timeout and retries.
ProviderOptions options_from_env(const ProviderIdentity& who, std::string model,
                                 std::string base_url = "");

// An Agent that speaks one HTTP chat protocol. A provider builds its request and reads its
// reply's text and truncation; this class names it, posts under its options and reads the rest.
class HttpChatProvider : public Agent {
 public:
  std::string provider() const override { return who_.provider; }
  std::string model() const override { return options_.model; }

 protected:
  HttpChatProvider(ProviderIdentity who, ProviderOptions options);

  // endpoint(options.base_url, who.default_base_url, path).
  std::string url_of(const std::string& path) const;
  // post_with_retries under this provider's identity and options.
  ProviderPost post(const std::string& url, const std::vector<std::string>& headers,
                    const std::string& body) const;
  // malformed_reply for this provider's `post` to `url`.
  AgentError malformed(const std::string& url, const ProviderPost& post,
                       const std::string& why) const;
  // The post's body as a JSON object; throws malformed(...) where it is not one.
  nlohmann::json reply_object(const std::string& url, const ProviderPost& post) const;
  // Fills what every protocol's reply says the same way: the model (options.model where `body`
  // names none), the token counts from body.usage[input_field] and body.usage[output_field] (0
  // where absent), the post's attempts and the latency since `start`.
  void read_common(const nlohmann::json& body, const char* input_field, const char* output_field,
                   const ProviderPost& post, std::chrono::steady_clock::time_point start,
                   AgentReply* reply) const;

  const ProviderOptions options_;

 private:
  const ProviderIdentity who_;
};

// The environment variable's value, or "" where it is unset.
std::string env_or_empty(const char* name);

// `text` with every occurrence of `secret` (when not empty) replaced by "[redacted]".
std::string redact(std::string text, const std::string& secret);

// `text` cut to at most `limit` bytes (on a UTF-8 boundary) with "..." appended when cut.
std::string shorten(const std::string& text, size_t limit = 300);

}  // namespace headway::agents
