#pragma once
// The ledger of a run's agent calls: every call goes through it, is stored in the workspace
// (table agent_calls; the prompt and the answer as artifacts) with its role, provider, model,
// tokens, cost, latency and outcome, and counts against the run's budgets. It also bounds the
// number of calls in flight at once. API keys never reach it: requests carry prompts only.
#include <cstdint>
#include <map>
#include <mutex>
#include <optional>
#include <semaphore>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

#include "agents/agent.h"
#include "store/workspace.h"

namespace headway::agents {

// USD per million tokens; zero when unknown (costs then read 0 and say nothing).
struct Price {
  double input_per_mtok = 0.0;
  double output_per_mtok = 0.0;
  double cost(int64_t input_tokens, int64_t output_tokens) const {
    return (static_cast<double>(input_tokens) * input_per_mtok +
            static_cast<double>(output_tokens) * output_per_mtok) /
           1e6;
  }
};

// Limits for one run; unset: no limit.
struct AgentBudget {
  std::optional<int64_t> max_calls;
  std::optional<int64_t> max_tokens;  // input and output together
  std::optional<double> max_cost_usd;
};

// Thrown by AgentLedger::call before calling when a budget is spent; what() names the budget,
// e.g. "agent budget spent: --max-calls 20 (20 calls made)".
class BudgetSpent : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

struct Spent {
  int64_t calls = 0;
  int64_t input_tokens = 0;
  int64_t output_tokens = 0;
  double cost_usd = 0.0;
};

// A stored call: its id, and either the reply or the error it ended with.
struct CallRecord {
  int64_t id = 0;
  std::optional<AgentReply> reply;
  std::optional<AgentError> error;
};

// Outcomes a call is stored with: "ok" (answered), "truncated" (answered, cut at max_tokens),
// "error:<kind>" (AgentError); later set by whoever parses the answer: "malformed" (with the
// reason), "candidate" (it became a node), "duplicate" (its code was tried before).
class AgentLedger {
 public:
  // agent must outlive the ledger. The ledger stores through a connection of its own to ws's
  // database, so that calls may be stored while the loop uses ws on its thread (throws
  // std::runtime_error when it cannot be opened). max_in_flight >= 1.
  AgentLedger(store::Workspace& ws, Agent& agent, AgentBudget budget = {}, Price price = {},
              int max_in_flight = 2);

  // Waits for a free slot, checks the budgets (BudgetSpent when one is spent: nothing is called
  // or stored), calls the agent and stores the call. An AgentError is stored and returned in the
  // record; one that is fatal for the run (AgentError::fatal_for_run) is stored and rethrown.
  // Thread-safe. Token and cost budgets count calls already answered, so calls in flight
  // together may overshoot them by at most their own use; the call budget is never exceeded.
  CallRecord call(const AgentRequest& request, const std::string& kernel = "");

  // Sets a stored call's outcome and reason (see above). Thread-safe.
  void set_outcome(int64_t call_id, std::string_view outcome, std::string_view reason = "");
  // Links a node to the call that proposed it (table node_agent_calls). Thread-safe.
  void link_node(int64_t node_id, int64_t call_id);
  // What became of a call whose code was added to a tree as node_id: a new node is linked to the
  // call ("candidate"); a duplicate (node_id is the earlier node with the same code) is not
  // ("duplicate"). Thread-safe.
  void record_proposal(int64_t node_id, int64_t call_id, bool duplicate);

  // Every call not yet started from now on throws BudgetSpent(why) instead (a run ending on a
  // fatal error does not wait for the rest of its batch). Thread-safe.
  void cancel(const std::string& why);

  Spent spent() const;
  // The budget that is spent, in the words of BudgetSpent; empty while none is.
  std::string spent_budget() const;
  const std::string& run_id() const { return run_; }
  int max_in_flight() const { return max_in_flight_; }
  Agent& agent() { return agent_; }

 private:
  std::string spent_budget_locked(int64_t reserved) const;

  store::Workspace ws_;  // the ledger's own connection
  Agent& agent_;
  AgentBudget budget_;
  Price price_;
  std::string run_;
  int max_in_flight_;
  std::counting_semaphore<64> slots_;
  mutable std::mutex mu_;  // guards spent_, reserved_ and the workspace
  Spent spent_;
  int64_t reserved_ = 0;  // calls started and not yet stored
  std::string cancelled_;
};

// A role's use of agents over the whole workspace (`headway agents usage`).
struct RoleUsage {
  std::string role;
  int64_t calls = 0;
  int64_t input_tokens = 0;
  int64_t output_tokens = 0;
  double cost_usd = 0.0;
  double latency_s = 0.0;
  std::map<std::string, int64_t> outcomes;  // outcome -> calls
  int64_t candidates = 0;                   // nodes its calls proposed
  int64_t accepted = 0;                     // of those, accepted as a head
};
std::vector<RoleUsage> usage_by_role(store::Workspace& ws);
// The sum of `roles` as one usage named "total": every count, token, cost, latency, outcome,
// candidate and accepted change added up.
RoleUsage total_usage(const std::vector<RoleUsage>& roles);

// The call that proposed a node, if an agent did.
struct NodeAgentCall {
  int64_t id = 0;
  std::string provider, model, role;
  std::string prompt_hash;                   // artifacts
  std::optional<std::string> response_hash;  // none when the call failed
  // "openai gpt-x, role variant, call 12"
  std::string describe() const;
};
std::optional<NodeAgentCall> node_agent_call(store::Workspace& ws, int64_t node_id);

}  // namespace headway::agents
