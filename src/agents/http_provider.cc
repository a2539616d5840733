#include "agents/http_provider.h"

#include <fmt/format.h>

#include <algorithm>
#include <chrono>
#include <cstdlib>
#include <nlohmann/json.hpp>
#include <optional>
#include <utility>

#include "common/ascii.h"

namespace headway::agents {

namespace {

// A string member of `object`, or "" where absent or not a string (numbers are printed).
std::string member(const nlohmann::json& object, const char* name) {
  if (!object.is_object()) return "";
  const auto it = object.find(name);
  if (it == object.end()) return "";
  if (it->is_string()) return it->get<std::string>();
  if (it->is_number()) return it->dump();
  return "";
}

// What an error body says: OpenAI {"error":{"message","type","code"}}, Anthropic
// {"type":"error","error":{"type","message"}}, vLLM {"message","type","code"}, Ollama
// {"error":"..."}.
struct ErrorBody {
  std::string message;
  std::string type;
  std::string code;
};

ErrorBody parse_error_body(const std::string& body) {
  ErrorBody out;
  const auto json = nlohmann::json::parse(body, nullptr, false);
  if (json.is_discarded() || !json.is_object()) {
    out.message = body;
    return out;
  }
  const auto error = json.find("error");
  if (error != json.end() && error->is_object()) {
    out.message = member(*error, "message");
    out.type = member(*error, "type");
    out.code = member(*error, "code");
  } else if (error != json.end() && error->is_string()) {
    out.message = error->get<std::string>();
  }
  if (out.message.empty()) out.message = member(json, "message");
  if (out.type.empty()) out.type = member(json, "type");
  if (out.code.empty()) out.code = member(json, "code");
  if (out.message.empty()) out.message = body;
  return out;
}

bool says_model_not_found(const ErrorBody& error) {
  for (const auto& word : {ascii_lower(error.type), ascii_lower(error.code)}) {
    if (word == "model_not_found" || word == "not_found_error" || word == "notfounderror") {
      return true;
    }
  }
  return false;
}

// The final error for a status that is not retried.
AgentError final_status_error(const ProviderIdentity& who, const ProviderOptions& options,
                              const std::string& url, const HttpResponse& response) {
  const ErrorBody error = parse_error_body(response.body);
  const std::string said = shorten(error.message);
  using Kind = AgentError::Kind;
  if (response.status == 401 || response.status == 403) {
    const std::string key = options.api_key.empty()
                                ? fmt::format("no API key was sent: {} is not set", who.key_env)
                                : fmt::format("the API key from {} was refused", who.key_env);
    return AgentError(Kind::kAuth, fmt::format("{}: {} from {}: {}: {}", who.provider,
                                               response.status, url, key, said));
  }
  if (response.status == 404 || says_model_not_found(error)) {
    return AgentError(Kind::kUnknownModel,
                      fmt::format("{}: {} from {}: model '{}' not found (or the base URL is "
                                  "wrong): {}",
                                  who.provider, response.status, url, options.model, said));
  }
  return AgentError(Kind::kBadRequest, fmt::format("{}: {} from {}: request rejected: {}",
                                                   who.provider, response.status, url, said));
}

}  // namespace

std::string env_or_empty(const char* name) {
  const char* value = std::getenv(name);
  return value ? value : "";
}

std::string redact(std::string text, const std::string& secret) {
  if (secret.empty()) return text;
  for (size_t at = text.find(secret); at != std::string::npos; at = text.find(secret, at)) {
    text.replace(at, secret.size(), "[redacted]");
  }
  return text;
}

std::string shorten(const std::string& text, size_t limit) {
  if (text.size() <= limit) return text;
  size_t cut = limit;
  // Back up over UTF-8 continuation bytes so that no character is split.
  while (cut > 0 && (static_cast<unsigned char>(text[cut]) & 0xC0) == 0x80) --cut;
  return text.substr(0, cut) + "...";
}

std::string endpoint(const std::string& base_url, const std::string& default_base_url,
                     const std::string& path) {
  std::string base = base_url.empty() ? default_base_url : base_url;
  while (!base.empty() && base.back() == '/') base.pop_back();
  return base + path;
}

AgentError malformed_reply(const ProviderIdentity& who, const ProviderOptions& options,
                           const std::string& url, const HttpResponse& response,
                           const std::string& why) {
  return AgentError(
      AgentError::Kind::kMalformed,
      redact(fmt::format("{}: {} from {} is not a reply of the protocol: {}; the "
                         "body begins: {}",
                         who.provider, response.status, url, why, shorten(response.body, 200)),
             options.api_key));
}

ProviderPost post_with_retries(const ProviderIdentity& who, const ProviderOptions& options,
                               const std::string& url, const std::vector<std::string>& headers,
                               const std::string& body) {
  Backoff backoff(options.retry);
  const int attempts = std::max(1, options.retry.attempts);
  std::string last_failure;
  bool last_timed_out = false;
  for (int attempt = 1;; ++attempt) {
    std::optional<Seconds> retry_after;
    try {
      HttpResponse response = post_json(url, headers, body, options.timeout);
      if (response.status >= 200 && response.status <= 299) {
        return ProviderPost{std::move(response), attempt};
      }
      if (!retryable_status(response.status)) {
        const AgentError error = final_status_error(who, options, url, response);
        throw AgentError(error.kind(), redact(error.what(), options.api_key));
      }
      last_failure = fmt::format("{} from {}: {}", response.status, url,
                                 shorten(parse_error_body(response.body).message));
      last_timed_out = false;
      if (const auto value = response.header("Retry-After"))
        retry_after = parse_retry_after(*value);
    } catch (const HttpTransportError& e) {
      last_failure = e.what();
      last_timed_out = e.timed_out();
    }
    if (attempt >= attempts) break;
    backoff.sleep(backoff.delay(attempt, retry_after));
  }
  const auto kind = last_timed_out ? AgentError::Kind::kTimeout : AgentError::Kind::kTransient;
  throw AgentError(kind,
                   redact(fmt::format("{}: gave up after {} attempt{}; the last: {}", who.provider,
                                      attempts, attempts == 1 ? "" : "s", last_failure),
                          options.api_key));
}

ProviderOptions options_from_env(const ProviderIdentity& who, std::string model,
                                 std::string base_url) {
  ProviderOptions options;
  options.model = std::move(model);
  options.base_url = std::move(base_url);
  options.api_key = env_or_empty(who.key_env);
  return options;
}

HttpChatProvider::HttpChatProvider(ProviderIdentity who, ProviderOptions options)
    : options_(std::move(options)), who_(who) {}

std::string HttpChatProvider::url_of(const std::string& path) const {
  return endpoint(options_.base_url, who_.default_base_url, path);
}

ProviderPost HttpChatProvider::post(const std::string& url, const std::vector<std::string>& headers,
                                    const std::string& body) const {
  return post_with_retries(who_, options_, url, headers, body);
}

AgentError HttpChatProvider::malformed(const std::string& url, const ProviderPost& post,
                                       const std::string& why) const {
  return malformed_reply(who_, options_, url, post.response, why);
}

nlohmann::json HttpChatProvider::reply_object(const std::string& url,
                                              const ProviderPost& post) const {
  auto json = nlohmann::json::parse(post.response.body, nullptr, false);
  if (json.is_discarded() || !json.is_object()) throw malformed(url, post, "not a JSON object");
  return json;
}

void HttpChatProvider::read_common(const nlohmann::json& body, const char* input_field,
                                   const char* output_field, const ProviderPost& post,
                                   std::chrono::steady_clock::time_point start,
                                   AgentReply* reply) const {
  const auto model = body.find("model");
  reply->model =
      model != body.end() && model->is_string() ? model->get<std::string>() : options_.model;
  if (const auto usage = body.find("usage"); usage != body.end() && usage->is_object()) {
    reply->input_tokens = usage->value(input_field, int64_t{0});
    reply->output_tokens = usage->value(output_field, int64_t{0});
  }
  reply->attempts = post.attempts;
  reply->latency_s =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
}

}  // namespace headway::agents
