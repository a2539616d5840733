#include "cli/floor_facts.h"

#include <fmt/format.h>

#include "cli/json_null.h"

namespace headway::cli {

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

void add_floor(const targets::BracketedFloor& floor, bool print, nlohmann::json* out,
               bool by_round) {
  (*out)["facts"] = nlohmann::json::array();
  for (const auto& f : floor.facts.measured) {
    (*out)["facts"].push_back(fact_json(f));
    if (print) fmt::print("{}\n", fact_line(f));
  }
  (*out)["floor"] = {{"around", floor.around},
                     {"held", floor.held},
                     {"moved_pct", 100 * floor.moved},
                     {"timings", floor.timings}};
  if (!print || !floor.around) return;
  const std::string movement = floor.movement();
  if (floor.held || by_round) {
    fmt::print(
        "floor facts: the faster of their measurements just before and just after the "
        "readings ({:.1f}% apart{})\n",
        100 * floor.moved, movement.empty() ? "" : "; " + movement);
  } else {
    fmt::print("floor facts: {}; the ratios to it are uncertain\n", movement);
  }
}

}  // namespace headway::cli
