#include "cli/floor_facts.h"

#include <fmt/format.h>

#include "cli/json_null.h"

namespace headway::cli {

Result<FloorFacts> floor_facts_from(std::vector<targets::ChipFact> measured,
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

FloorFacts measure_floor_facts(targets::Target& target) {
  targets::FactOptions options;
  options.only = target.floor_facts();
  return value_or_fail(
      floor_facts_from(target.measure_facts(options), options.only, target.name()));
}

nlohmann::json fact_json(const targets::ChipFact& fact) {
  return {{"name", fact.name},
          {"value", fact.value},
          {"unit", fact.unit},
          {"spread_pct", or_null(fact.spread)},
          {"method", fact.method}};
}

std::string fact_line(const targets::ChipFact& fact) {
  return fmt::format("{}: {:.4g} {}{}", fact.name, fact.value, fact.unit,
                     fact.spread ? fmt::format(" (cv {:.1f}%)", *fact.spread) : "");
}

}  // namespace headway::cli
