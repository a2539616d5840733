#include "targets/floor_facts.h"

#include <fmt/format.h>

#include <algorithm>

namespace headway::targets {

Result<FloorFacts> floor_facts_from(std::vector<ChipFact> measured,
                                    const std::vector<std::string>& needed,
                                    const std::string& target_name) {
  FloorFacts facts;
  for (const auto& f : measured) facts.values[f.name] = f.value;
  for (const auto& name : needed) {
    if (!facts.values.count(name))
      return environment_error(fmt::format("the {} target did not measure {}", target_name, name));
  }
  facts.measured = std::move(measured);
  return facts;
}

Result<FloorFacts> measure_floor_facts(Target& target) {
  FactOptions options;
  options.only = target.floor_facts();
  return floor_facts_from(target.measure_facts(options), options.only, target.name());
}

std::map<std::string, double> mean_floor_facts(const FloorFacts& before, const FloorFacts& after) {
  std::map<std::string, double> mean;
  for (const auto& [name, value] : before.values) mean[name] = (value + after.values.at(name)) / 2;
  return mean;
}

std::string before_and_after_text(const FloorFacts& before, const FloorFacts& after,
                                  const std::vector<std::string>& names) {
  std::string text;
  for (const ChipFact& f : before.measured) {
    const auto later = after.values.find(f.name);
    if (later == after.values.end() || std::find(names.begin(), names.end(), f.name) == names.end())
      continue;
    text += fmt::format("{}{} {:.4g} then {:.4g} {}", text.empty() ? "" : ", ", f.name, f.value,
                        later->second, f.unit);
  }
  return text;
}

}  // namespace headway::targets
