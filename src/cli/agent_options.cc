#include "cli/agent_options.h"

#include <fmt/format.h>

#include "agents/agent_spec.h"
#include "cli/cli_support.h"

namespace headway::cli {
namespace {

agents::Price parse_price(const std::string& text) {
  agents::Price p;
  if (text.empty()) return p;
  char comma = 0;
  std::istringstream in(text);
  if (!(in >> p.input_per_mtok >> comma >> p.output_per_mtok) || comma != ',' || !in.eof() ||
      p.input_per_mtok < 0 || p.output_per_mtok < 0) {
    throw UsageError(fmt::format(
        "--agent-price '{}': expected IN,OUT in USD per million tokens, e.g. 3,15", text));
  }
  return p;
}

agents::AgentSpecOptions spec_options(const AgentArgs& args) {
  agents::AgentSpecOptions o;
  o.base_url = args.base_url;
  o.timeout_seconds = args.timeout_seconds;
  o.record = args.record;
  return o;
}

}  // namespace

std::filesystem::path prompts_dir(const store::Workspace& ws) {
  return ws.root() / ".headway" / "prompts";
}

void add_agent_options(CLI::App* cmd, AgentArgs& args) {
  cmd->add_option("--agent", args.spec,
                  "an agent: openai:MODEL, anthropic:MODEL, cmd:'COMMAND' or replay:FILE");
  cmd->add_option("--agent-base-url", args.base_url,
                  "the API's base URL for openai:/anthropic: (e.g. http://127.0.0.1:8000/v1)");
  cmd->add_option("--agent-timeout", args.timeout_seconds,
                  "seconds per HTTP attempt or per command run");
  cmd->add_option("--agent-record", args.record,
                  "append every answer to this transcript (replay:FILE plays it)");
  cmd->add_option("--agent-jobs", args.jobs,
                  "agent calls in flight at once (default 2; optimize on a pool: 2 per device)");
  cmd->add_option("--agent-price", args.price, "IN,OUT: USD per million input and output tokens");
  cmd->add_option("--max-calls", args.max_calls, "stop asking the agent after this many calls");
  cmd->add_option("--max-tokens", args.max_tokens, "stop asking the agent after this many tokens");
  cmd->add_option("--max-cost", args.max_cost, "stop asking the agent after this many USD");
}

void validate_agent_args(const AgentArgs& args) {
  if (args.spec.empty()) {
    for (const auto& [given, name] : {std::pair{!args.base_url.empty(), "--agent-base-url"},
                                      {!args.record.empty(), "--agent-record"},
                                      {args.max_calls.has_value(), "--max-calls"},
                                      {args.max_tokens.has_value(), "--max-tokens"},
                                      {args.max_cost.has_value(), "--max-cost"},
                                      {!args.price.empty(), "--agent-price"},
                                      {args.timeout_seconds != 0, "--agent-timeout"}}) {
      if (given) throw UsageError(fmt::format("{} needs --agent", name));
    }
    return;
  }
  if (args.jobs && (*args.jobs < 1 || *args.jobs > 64))
    throw UsageError(fmt::format("--agent-jobs {}: expected 1 to 64", *args.jobs));
  if (args.max_calls && *args.max_calls < 1) throw UsageError("--max-calls must be at least 1");
  if (args.max_tokens && *args.max_tokens < 1) throw UsageError("--max-tokens must be at least 1");
  if (args.max_cost && !(*args.max_cost > 0)) throw UsageError("--max-cost must be more than 0");
  if (args.max_cost && args.price.empty()) {
    throw UsageError("--max-cost needs --agent-price IN,OUT: without prices every call costs 0");
  }
  parse_price(args.price);
  // The agent itself: a bad spec or an unreadable transcript is a usage error now, not later.
  try {
    auto o = spec_options(args);
    o.record.clear();  // nothing is written while checking
    agents::make_agent(args.spec, o);
  } catch (const std::exception& e) {
    throw UsageError(e.what());
  }
}

AgentRun start_agent_run(store::Workspace& ws, const AgentArgs& args) {
  AgentRun run;
  if (args.spec.empty()) return run;
  try {
    run.agent = agents::make_agent(args.spec, spec_options(args));
  } catch (const std::exception& e) {
    throw UsageError(e.what());
  }
  agents::AgentBudget budget;
  budget.max_calls = args.max_calls;
  budget.max_tokens = args.max_tokens;
  budget.max_cost_usd = args.max_cost;
  run.ledger = std::make_unique<agents::AgentLedger>(
      ws, *run.agent, budget, parse_price(args.price), args.jobs.value_or(2));
  return run;
}

std::string agent_run_line(const AgentRun& run) {
  if (!run) return "";
  const agents::Spent s = run.ledger->spent();
  return fmt::format("agent calls: {}, tokens {} in / {} out, USD {:.4f}", s.calls, s.input_tokens,
                     s.output_tokens, s.cost_usd);
}

void fail_with_agent_error(const AgentArgs& args, const agents::AgentError& error) {
  using Kind = agents::AgentError::Kind;
  const bool users = error.kind() == Kind::kAuth || error.kind() == Kind::kUnknownModel;
  std::string message =
      fmt::format("agent {}: {}: {}", args.spec, agents::to_string(error.kind()), error.what());
  fail_with(users ? invalid_input(std::move(message)) : environment_error(std::move(message)));
}

}  // namespace headway::cli
