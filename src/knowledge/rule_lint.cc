#include "knowledge/rule_lint.h"

#include <fmt/format.h>

#include <memory>

#include "knowledge/facts.h"
#include "knowledge/rule_detector.h"
#include "knowledge/rules.h"

namespace headway::knowledge {

namespace {

bool holds_for(const Rule& rule, const std::string& toolchain) {
  for (const RuleStatus& s : rule.statuses) {
    if (s.toolchain == toolchain) return s.state != RuleState::kRetired;
  }
  return false;
}

std::optional<std::string> first_detected(store::Workspace& ws, const std::string& toolchain,
                                          const std::string& source) {
  for (const Rule& rule : list_rules(ws)) {
    if (!rule.detector || !holds_for(rule, toolchain)) continue;
    if (auto m = detector_match(*rule.detector, source)) {
      return fmt::format("rule {}: {} (detector /{}/ matches line {}: `{}`)", rule.id, rule.text,
                         *rule.detector, m->line, m->text);
    }
  }
  return std::nullopt;
}

}  // namespace

LintHook rule_lint_following_workspace(store::Workspace& ws) {
  struct Current {
    std::string target;
    std::string toolchain;  // the spec in the workspace's meta
    std::string id;
  };
  auto current = std::make_shared<Current>();
  return [&ws, current](const std::string& source) -> std::optional<std::string> {
    const std::string target = workspace_target_name(ws);
    const std::string toolchain = workspace_toolchain(ws, target);
    if (current->id.empty() || target != current->target || toolchain != current->toolchain) {
      *current = {target, toolchain, current_toolchain_id(ws)};
    }
    return first_detected(ws, current->id, source);
  };
}

LintHook rule_lint(store::Workspace& ws, std::string toolchain) {
  return [&ws, toolchain = std::move(toolchain)](const std::string& source) {
    return first_detected(ws, toolchain, source);
  };
}

}  // namespace headway::knowledge
