#pragma once
// The agent options `optimize`, `onboard` and `migrate` share: which agent (--agent), where it
// is served (--agent-base-url), its limits (--max-calls, --max-tokens, --max-cost,
// --agent-jobs), what its tokens cost (--agent-price) and where its answers are recorded
// (--agent-record). Keys come from OPENAI_API_KEY / ANTHROPIC_API_KEY only, never options.
#include <CLI/CLI.hpp>
#include <memory>
#include <optional>
#include <string>

#include "agents/agent.h"
#include "agents/agent_ledger.h"
#include "store/workspace.h"

namespace headway::cli {

struct AgentArgs {
  std::string spec;  // empty: no agent
  std::string base_url;
  std::string record;
  double timeout_seconds = 0;
  std::optional<int64_t> max_calls;
  std::optional<int64_t> max_tokens;
  std::optional<double> max_cost;
  std::optional<int> jobs;  // calls in flight at once; unset: 2 (optimize: 2 per round at once)
  std::string price;        // "IN,OUT" USD per million tokens
};

void add_agent_options(CLI::App* cmd, AgentArgs& args);

// The run's agent and its ledger; empty when no --agent was given.
struct AgentRun {
  std::unique_ptr<agents::Agent> agent;
  std::unique_ptr<agents::AgentLedger> ledger;
  explicit operator bool() const { return agent != nullptr; }
};

// Where a workspace keeps its overrides of the role prompts: <workspace>/.headway/prompts.
std::filesystem::path prompts_dir(const store::Workspace& ws);

// Checks every agent option without touching a workspace (UsageError naming the option).
void validate_agent_args(const AgentArgs& args);
// Makes the agent and a ledger on ws. Requires validate_agent_args(args) to have passed.
AgentRun start_agent_run(store::Workspace& ws, const AgentArgs& args);

// "agent calls: 12 (3 malformed), tokens 40,000 in / 9,000 out, USD 0.42" for the run so far.
std::string agent_run_line(const AgentRun& run);

// Stops the verb on an agent's failure: "agent SPEC: KIND: what". A key the provider refuses or
// a model it does not know is the user's input (exit 2); anything else (a provider that is
// unreachable, times out, answers out of protocol or refuses the request; a command agent that
// fails) is the environment's (exit 3).
[[noreturn]] void fail_with_agent_error(const AgentArgs& args, const agents::AgentError& error);

}  // namespace headway::cli
