#include <fmt/format.h>

#include <memory>
#include <nlohmann/json.hpp>
#include <string>

#include "cli/cli_support.h"
#include "cli/verbs.h"
#include "knowledge/rules.h"

namespace headway::cli {

namespace {
struct RulesArgs {
  bool json = false;
  std::string workspace;
};

int run_rules(const RulesArgs& args) {
  store::Workspace ws = open_workspace_or_throw(args.workspace);
  const auto rules = knowledge::list_rules(ws);
  if (args.json) {
    nlohmann::json out = nlohmann::json::array();
    for (const auto& r : rules) {
      nlohmann::json j = {{"id", r.id}, {"signature", r.signature}, {"text", r.text},
                          {"repro", r.repro_hash ? nlohmann::json(*r.repro_hash) : nlohmann::json()},
                          {"created_at", r.created_at}, {"status", nlohmann::json::object()},
                          {"evidence", nlohmann::json::array()}};
      for (const auto& s : r.statuses) {
        j["status"][s.toolchain] = {{"status", knowledge::to_string(s.state)}, {"evidence", s.evidence}, {"at", s.at}};
      }
      for (const auto& e : r.evidence) j["evidence"].push_back({{"kernel", e.kernel}, {"node", e.node_id}, {"note", e.note}});
      out.push_back(std::move(j));
    }
    fmt::print("{}\n", out.dump(2));
    return 0;
  }
  if (rules.empty()) fmt::print("no rules (run `headway onboard` to mine them from the Design Trees)\n");
  for (const auto& r : rules) {
    fmt::print("rule {}: {}\n  signature: {}\n", r.id, r.text, r.signature);
    for (const auto& s : r.statuses) fmt::print("  {:<18} {}\n", knowledge::to_string(s.state), s.toolchain);
    std::string ev;
    for (const auto& e : r.evidence) ev += fmt::format("{}{}#{}", ev.empty() ? "" : ", ", e.kernel, e.node_id);
    fmt::print("  evidence: {}{}\n", ev.empty() ? "none" : ev, r.repro_hash ? "; repro kept" : "");
  }
  return 0;
}
}  // namespace

void add_rules(CLI::App& app, int* exit_code) {
  auto args = std::make_shared<RulesArgs>();
  auto* cmd = app.add_subcommand("rules", "List the legality rules with their status per toolchain");
  cmd->add_flag("--json", args->json, "print JSON");
  cmd->add_option("--workspace", args->workspace,
                  "workspace directory (default: the nearest one up from here)");
  cmd->callback([args, exit_code] { run_verb(exit_code, [&] { return run_rules(*args); }); });
}

}  // namespace headway::cli
