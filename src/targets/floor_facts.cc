#include "targets/floor_facts.h"

#include <fmt/format.h>

#include <algorithm>

#include "common/stats.h"

namespace headway::targets {

Result<FloorFacts> floor_facts_from(std::vector<ChipFact> measured,
                                    const std::vector<std::string>& needed,
                                    const std::string& target_name) {
  FloorFacts facts;
  for (const auto& f : measured) {
    facts.values[f.name] = f.value;
    facts.repeats[f.name] = {f.value};
  }
  for (const auto& name : needed) {
    if (!facts.values.count(name))
      return environment_error(fmt::format("the {} target did not measure {}", target_name, name));
  }
  facts.measured = std::move(measured);
  return facts;
}

Result<FloorFacts> measure_floor_facts(Target& target, int times) {
  FactOptions options;
  options.only = target.floor_facts();
  auto first = floor_facts_from(target.measure_facts(options), options.only, target.name());
  if (!first || times <= 1) return first;
  FloorFacts facts = std::move(first).value();
  for (int i = 1; i < times; ++i) {
    auto again = floor_facts_from(target.measure_facts(options), options.only, target.name());
    if (!again) return again.error();
    for (auto& [name, values] : facts.repeats) {
      if (const auto v = again->values.find(name); v != again->values.end())
        values.push_back(v->second);
    }
  }
  for (ChipFact& f : facts.measured) {
    const std::vector<double>& values = facts.repeats.at(f.name);
    f.value = facts.values[f.name] = median(values);
    f.method += fmt::format("; the median of {} measurements in a row", values.size());
  }
  return facts;
}

int floor_measurements(const Target& target) { return target.times_on_host() ? 5 : 1; }

std::string median_text(const FloorFacts& facts, const std::vector<std::string>& names) {
  std::string text;
  for (const ChipFact& f : facts.measured) {
    if (std::find(names.begin(), names.end(), f.name) == names.end()) continue;
    const std::vector<double>& values = facts.repeats.at(f.name);
    std::string each;
    for (const double v : values) each += fmt::format("{}{:.4g}", each.empty() ? "" : ", ", v);
    text += fmt::format("{}{} {:.4g} {}", text.empty() ? "" : "; ", f.name, f.value, f.unit);
    if (values.size() > 1) text += fmt::format(" (the median of {})", each);
  }
  return text;
}

}  // namespace headway::targets
