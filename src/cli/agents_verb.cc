#include <fmt/format.h>

#include <memory>
#include <nlohmann/json.hpp>
#include <string>

#include "agents/agent_ledger.h"
#include "cli/cli_support.h"
#include "cli/verbs.h"

namespace headway::cli {

namespace {
struct AgentsUsageArgs {
  std::string workspace;
  bool json = false;
};

nlohmann::json usage_json(const agents::RoleUsage& u) {
  return {{"role", u.role},
          {"calls", u.calls},
          {"input_tokens", u.input_tokens},
          {"output_tokens", u.output_tokens},
          {"cost_usd", u.cost_usd},
          {"latency_s", u.latency_s},
          {"outcomes", u.outcomes},
          {"candidates", u.candidates},
          {"accepted", u.accepted}};
}

int run_agents_usage(const AgentsUsageArgs& args) {
  store::Workspace ws = open_workspace_or_throw(args.workspace);
  auto roles = agents::usage_by_role(ws);
  const agents::RoleUsage total = agents::total_usage(roles);
  if (args.json) {
    nlohmann::json out = {{"roles", nlohmann::json::array()}, {"total", usage_json(total)}};
    for (const auto& u : roles) out["roles"].push_back(usage_json(u));
    fmt::print("{}\n", out.dump(2));
    return kExitOk;
  }
  if (roles.empty()) {
    fmt::print("no agent calls in this workspace\n");
    return kExitOk;
  }
  fmt::print("{:<12} {:>6} {:>12} {:>12} {:>10} {:>10} {:>10} {:>9}  {}\n", "role", "calls",
             "tokens in", "tokens out", "USD", "candidates", "accepted", "calls/acc", "outcomes");
  roles.push_back(total);
  for (const auto& u : roles) {
    std::string outcomes;
    for (const auto& [outcome, n] : u.outcomes)
      outcomes += fmt::format("{}{} {}", outcomes.empty() ? "" : ", ", n, outcome);
    fmt::print("{:<12} {:>6} {:>12} {:>12} {:>10.4f} {:>10} {:>10} {:>9}  {}\n", u.role, u.calls,
               u.input_tokens, u.output_tokens, u.cost_usd, u.candidates, u.accepted,
               u.accepted > 0 ? fmt::format("{:.1f}", static_cast<double>(u.calls) /
                                                          static_cast<double>(u.accepted))
                              : "-",
               outcomes);
  }
  return kExitOk;
}
}  // namespace

void add_agents(CLI::App& app, int* exit_code) {
  auto* agents_cmd =
      app.add_subcommand("agents", "What the workspace's agents were asked and what came of it");
  agents_cmd->require_subcommand(1);
  auto args = std::make_shared<AgentsUsageArgs>();
  auto* usage = agents_cmd->add_subcommand(
      "usage", "Agent calls, tokens, cost and accepted changes per role, over the whole workspace");
  usage->add_option("--workspace", args->workspace,
                    "workspace directory (default: the nearest one up from here)");
  usage->add_flag("--json", args->json, "print one JSON object: each role and the total");
  usage->callback(
      [args, exit_code] { run_verb(exit_code, [&] { return run_agents_usage(*args); }); });
}

}  // namespace headway::cli
