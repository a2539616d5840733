#pragma once
// The chip facts a target's floors need, measured for `headway bench` (plain, --step and
// --peers), and how bench shows them.
#include <map>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "common/result.h"
#include "targets/target.h"

namespace headway::cli {

struct FloorFacts {
  std::vector<targets::ChipFact> measured;  // as the target measured them, in its order
  std::map<std::string, double> values;     // by name: what Target::floors takes
};

// `measured` by name, or an environment error naming the first of `needed` that `target_name`
// did not measure.
Result<FloorFacts> floor_facts_from(std::vector<targets::ChipFact> measured,
                                    const std::vector<std::string>& needed,
                                    const std::string& target_name);
// Measures target.floor_facts() now (seconds on real hardware); a Failure as floor_facts_from.
FloorFacts measure_floor_facts(targets::Target& target);

// A fact as bench --json gives it: name, value, unit, spread_pct (null without one), method.
nlohmann::json fact_json(const targets::ChipFact& fact);
// A fact as bench prints it: "NAME: VALUE UNIT", then " (cv X%)" where it has a spread.
std::string fact_line(const targets::ChipFact& fact);

}  // namespace headway::cli
