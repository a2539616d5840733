#include "targets/floor_facts.h"

#include <fmt/format.h>

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

Result<FloorFacts> measure_floor_facts(Target& target, std::vector<std::string> names,
                                       int readings) {
  FactOptions options;
  options.readings = readings;
  options.only = names.empty() ? target.floor_facts() : std::move(names);
  return floor_facts_from(target.measure_facts(options), options.only, target.name());
}

}  // namespace headway::targets
