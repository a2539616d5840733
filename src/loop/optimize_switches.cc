#include "loop/optimize_switches.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <utility>

#include "common/split_fields.h"

namespace headway::loop {

namespace {

struct Part {
  std::string name;
  bool OptimizeOptions::*on;
};

const std::vector<Part>& parts() {
  static const std::vector<Part> all{{"static-cost-screen", &OptimizeOptions::static_cost_screen},
                                     {"racing", &OptimizeOptions::racing}};
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
    changed.*(part->on) = false;
  }
  *options = std::move(changed);
  return {};
}

std::string switched_off(const OptimizeOptions& options) {
  std::vector<std::string> off;
  for (const auto& p : parts()) {
    if (!(options.*(p.on))) off.push_back(p.name);
  }
  return fmt::format("{}", fmt::join(off, ","));
}

}  // namespace headway::loop
