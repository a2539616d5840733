#include <fmt/format.h>

#include <memory>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "cli/cli_support.h"
#include "cli/verbs.h"
#include "knowledge/rules.h"

namespace headway::cli {

namespace {
struct RulesArgs {
  bool json = false;
  std::string workspace;
  std::vector<std::string> set_detector;  // ID PATTERN
  std::string clear_detector;             // ID
};

int64_t rule_id_or_throw(const std::string& text) {
  try {
    size_t used = 0;
    const long long id = std::stoll(text, &used);
    if (used == text.size() && id > 0) return id;
  } catch (const std::exception&) {
  }
  throw UsageError(fmt::format("'{}' is not a rule id (see `headway rules`)", text));
}

int change_detector(store::Workspace& ws, const RulesArgs& args) {
  const bool set = !args.set_detector.empty();
  const int64_t id = rule_id_or_throw(set ? args.set_detector[0] : args.clear_detector);
  const std::optional<std::string> detector =
      set ? std::optional(args.set_detector[1]) : std::nullopt;
  if (auto ok = knowledge::set_rule_detector(ws, id, detector); !ok) fail_with(ok.error());
  if (args.json) {
    const nlohmann::json out = {
        {"rule", id}, {"detector", detector ? nlohmann::json(*detector) : nlohmann::json()}};
    fmt::print("{}\n", out.dump(2));
  } else if (detector) {
    fmt::print("rule {}: detector /{}/\n", id, *detector);
  } else {
    fmt::print("rule {}: detector cleared\n", id);
  }
  return 0;
}

int run_rules(const RulesArgs& args) {
  store::Workspace ws = open_workspace_or_throw(args.workspace);
  if (!args.set_detector.empty() && !args.clear_detector.empty()) {
    throw UsageError("--set-detector and --clear-detector cannot be given together");
  }
  if (!args.set_detector.empty() || !args.clear_detector.empty()) return change_detector(ws, args);
  const auto rules = knowledge::list_rules(ws);
  if (args.json) {
    nlohmann::json out = nlohmann::json::array();
    for (const auto& r : rules) {
      nlohmann::json j = {
          {"id", r.id},
          {"signature", r.signature},
          {"text", r.text},
          {"detector", r.detector ? nlohmann::json(*r.detector) : nlohmann::json()},
          {"repro", r.repro_hash ? nlohmann::json(*r.repro_hash) : nlohmann::json()},
          {"created_at", r.created_at},
          {"status", nlohmann::json::object()},
          {"evidence", nlohmann::json::array()}};
      for (const auto& s : r.statuses) {
        j["status"][s.toolchain] = {
            {"status", knowledge::to_string(s.state)}, {"evidence", s.evidence}, {"at", s.at}};
      }
      for (const auto& e : r.evidence)
        j["evidence"].push_back({{"kernel", e.kernel}, {"node", e.node_id}, {"note", e.note}});
      out.push_back(std::move(j));
    }
    fmt::print("{}\n", out.dump(2));
    return 0;
  }
  if (rules.empty())
    fmt::print("no rules (run `headway onboard` to mine them from the Design Trees)\n");
  for (const auto& r : rules) {
    fmt::print("rule {}: {}\n  signature: {}\n", r.id, r.text, r.signature);
    if (r.detector) fmt::print("  detector: /{}/\n", *r.detector);
    for (const auto& s : r.statuses)
      fmt::print("  {:<18} {}\n", knowledge::to_string(s.state), s.toolchain);
    std::string ev;
    for (const auto& e : r.evidence)
      ev += fmt::format("{}{}#{}", ev.empty() ? "" : ", ", e.kernel, e.node_id);
    fmt::print("  evidence: {}{}\n", ev.empty() ? "none" : ev, r.repro_hash ? "; repro kept" : "");
  }
  return 0;
}
}  // namespace

void add_rules(CLI::App& app, int* exit_code) {
  auto args = std::make_shared<RulesArgs>();
  auto* cmd = app.add_subcommand(
      "rules",
      "List the legality rules with their status per toolchain; set or clear a rule's detector");
  cmd->add_flag("--json", args->json, "print JSON");
  cmd->add_option(
         "--set-detector", args->set_detector,
         "ID PATTERN: reject candidates whose source (comments blanked) matches the ECMAScript "
         "regex before they are built; it must match the rule's repro")
      ->expected(2)
      ->type_name("ID PATTERN");
  cmd->add_option("--clear-detector", args->clear_detector, "ID: remove the rule's detector");
  cmd->add_option("--workspace", args->workspace,
                  "workspace directory (default: the nearest one up from here)");
  cmd->callback([args, exit_code] { run_verb(exit_code, [&] { return run_rules(*args); }); });
}

}  // namespace headway::cli
