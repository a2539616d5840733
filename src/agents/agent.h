#pragma once
// An agent answers one request of one role (designer, variant, summarizer, judge, ...) with text
// and, for agents that edit files (coding-agent CLIs), the files it edited. Providers (OpenAI-
// compatible and Anthropic HTTP APIs), command agents and the replay agent implement it; the
// accounting wrapper (agent_calls.h) stores every call and enforces the run's budgets.
//
// Failures are AgentError with a kind the loop acts on: kTransient failures were retried by the
// agent itself and ran out of attempts (the loop may try again later); every other kind is final
// for this request, and kAuth, kUnknownModel and kBadRequest are final for the whole run.
#include <cstdint>
#include <map>
#include <stdexcept>
#include <string>

namespace headway::agents {

struct AgentRequest {
  std::string role;    // "designer", "variant", "porter", "rule-miner", "summarizer", "judge", ...
  std::string system;  // the system prompt; may be empty
  std::string prompt;  // the user message
  int max_tokens = 8192;  // the most output tokens the answer may take
  // Files the agent may edit, by relative path (no "..", no leading '/'), with their contents.
  // HTTP providers put nothing of them in the request (the prompt already quotes what it needs);
  // command agents write them into a scratch directory and return the edited versions.
  std::map<std::string, std::string> files;
};

struct AgentReply {
  std::string text;                          // the answer (a CLI's stdout)
  std::map<std::string, std::string> files;  // request files whose contents changed, by path
  std::string model;                         // the model that answered, as the provider names it
  int64_t input_tokens = 0;                  // 0 where the provider does not say
  int64_t output_tokens = 0;
  double latency_s = 0.0;  // wall time of the whole call, retries and waits included
  int attempts = 1;        // HTTP attempts (1 without retries)
  bool truncated = false;  // the provider stopped at max_tokens (finish/stop reason says so)
};

class AgentError : public std::runtime_error {
 public:
  enum class Kind {
    kAuth,          // 401/403: the key is missing, wrong or not allowed
    kUnknownModel,  // the provider does not know the model (404, or a model-not-found error)
    kBadRequest,    // 400/413/422: the request was malformed or too large
    kTimeout,       // no complete answer within the time limit (after retries where retried)
    kTransient,     // 429/5xx/connection failures, retried until attempts ran out
    kMalformed,     // the provider answered 2xx with a body that is not its protocol
    kCommand,       // a command agent could not be started or exited non-zero
  };
  AgentError(Kind kind, const std::string& what) : std::runtime_error(what), kind_(kind) {}
  Kind kind() const { return kind_; }
  // True for the kinds that will fail the same way on every later request of the run.
  bool fatal_for_run() const {
    return kind_ == Kind::kAuth || kind_ == Kind::kUnknownModel || kind_ == Kind::kBadRequest;
  }

 private:
  Kind kind_;
};

// "auth", "unknown-model", "bad-request", "timeout", "transient", "malformed", "command".
const char* to_string(AgentError::Kind kind);

class Agent {
 public:
  virtual ~Agent() = default;
  virtual std::string provider() const = 0;  // "openai", "anthropic", "cmd", "replay"
  virtual std::string model() const = 0;     // the model asked for; the command for "cmd"
  // Thread-safe: the loop may call from several threads at once (a concurrency limit is the
  // caller's). Throws AgentError.
  virtual AgentReply complete(const AgentRequest& request) = 0;
};

}  // namespace headway::agents
