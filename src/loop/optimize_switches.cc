#include "loop/optimize_switches.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <utility>

#include "common/split_fields.h"

namespace headway::loop {

namespace {

// A part is one switch of OptimizeOptions, or a group of them (knowledge).
struct Part {
  std::string name;
  std::vector<bool OptimizeOptions::*> switches;
};

const std::vector<Part>& parts() {
  static const std::vector<Part> all{{"knowledge",
                                      {&OptimizeOptions::floor_guidance,
                                       &OptimizeOptions::isa_gating, &OptimizeOptions::slow_designs,
                                       &OptimizeOptions::rule_lint, &OptimizeOptions::cheat_sheet}},
                                     {"floor-guidance", {&OptimizeOptions::floor_guidance}},
                                     {"isa-gating", {&OptimizeOptions::isa_gating}},
                                     {"slow-designs", {&OptimizeOptions::slow_designs}},
                                     {"rule-lint", {&OptimizeOptions::rule_lint}},
                                     {"cheat-sheet", {&OptimizeOptions::cheat_sheet}},
                                     {"static-cost-screen", {&OptimizeOptions::static_cost_screen}},
                                     {"racing", {&OptimizeOptions::racing}}};
  return all;
}

}  // namespace

const std::vector<std::string>& switchable_parts() {
  static const std::vector<std::string> names = [] {
    std::vector<std::string> out;
    for (const auto& p : parts()) out.push_back(p.name);
    return out;
  }();
  return names;
}

Status switch_off(std::string_view list, OptimizeOptions* options) {
  OptimizeOptions changed = *options;
  for (const std::string& name : split_fields(list, ',')) {
    if (name.empty()) continue;
    const Part* part = nullptr;
    for (const auto& p : parts()) {
      if (p.name == name) part = &p;
    }
    if (!part) {
      return invalid_input(fmt::format("unknown part of the loop '{}' (valid: {})", name,
                                       fmt::join(switchable_parts(), ", ")));
    }
    for (const auto on : part->switches) changed.*on = false;
  }
  *options = std::move(changed);
  return {};
}

std::string switched_off(const OptimizeOptions& options) {
  std::vector<std::string> off;
  std::vector<bool OptimizeOptions::*> named;  // switches a listed group already names
  for (const auto& p : parts()) {
    const bool all_off =
        std::all_of(p.switches.begin(), p.switches.end(), [&](auto on) { return !(options.*on); });
    const bool all_named = std::all_of(p.switches.begin(), p.switches.end(), [&](auto on) {
      return std::find(named.begin(), named.end(), on) != named.end();
    });
    if (!all_off || all_named) continue;
    off.push_back(p.name);
    named.insert(named.end(), p.switches.begin(), p.switches.end());
  }
  return fmt::format("{}", fmt::join(off, ","));
}

}  // namespace headway::loop
