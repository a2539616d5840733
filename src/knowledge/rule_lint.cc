#include "knowledge/rule_lint.h"

#include <fmt/format.h>

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

}  // namespace

loop::LintHook rule_lint(store::Workspace& ws, std::string toolchain) {
  return [&ws, toolchain =
                   std::move(toolchain)](const std::string& source) -> std::optional<std::string> {
    for (const Rule& rule : list_rules(ws)) {
      if (!rule.detector || !holds_for(rule, toolchain)) continue;
      if (auto m = detector_match(*rule.detector, source)) {
        return fmt::format("rule {}: {} (detector /{}/ matches line {}: `{}`)", rule.id, rule.text,
                           *rule.detector, m->line, m->text);
      }
    }
    return std::nullopt;
  };
}

}  // namespace headway::knowledge
