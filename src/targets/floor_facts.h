#pragma once
// The chip facts a target's floors need (Target::floor_facts), measured now: for `headway bench`
// and the final side-by-side timing of `headway optimize`, around their readings
// (targets/floor_bracket.h).
#include <map>
#include <string>
#include <vector>

#include "common/result.h"
#include "targets/target.h"

namespace headway::targets {

struct FloorFacts {
  std::vector<ChipFact> measured;        // as the target measured them, in its order
  std::map<std::string, double> values;  // by name: what Target::floors takes
  // By name: every measurement's value in the order measured (one each for a single one; before
  // and after for a timing's bracket, targets/floor_bracket.h).
  std::map<std::string, std::vector<double>> repeats;
};

// `measured` by name, or an environment error naming the first of `needed` that `target_name`
// did not measure.
Result<FloorFacts> floor_facts_from(std::vector<ChipFact> measured,
                                    const std::vector<std::string>& needed,
                                    const std::string& target_name);
// Measures target.floor_facts() once (seconds on real hardware), or only `names` where given,
// each benchmark taking `readings` timed readings (FactOptions::readings). Fails as
// floor_facts_from when the measurement lacks a needed fact.
Result<FloorFacts> measure_floor_facts(Target& target, std::vector<std::string> names = {},
                                       int readings = FactOptions{}.readings);

}  // namespace headway::targets
