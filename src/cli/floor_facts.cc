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

}  // namespace headway::cli
