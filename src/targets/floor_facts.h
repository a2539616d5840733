#pragma once
// The chip facts a target's floors need (Target::floor_facts), measured now: for `headway bench`,
// and around a kernel's side-by-side readings on a target whose floor facts move with the hour
// (knowledge/kernel_timings.h).
#include <map>
#include <string>
#include <vector>

#include "common/result.h"
#include "targets/target.h"

namespace headway::targets {

struct FloorFacts {
  std::vector<ChipFact> measured;        // as the target measured them, in its order
  std::map<std::string, double> values;  // by name: what Target::floors takes
};

// `measured` by name, or an environment error naming the first of `needed` that `target_name`
// did not measure.
Result<FloorFacts> floor_facts_from(std::vector<ChipFact> measured,
                                    const std::vector<std::string>& needed,
                                    const std::string& target_name);
// Measures target.floor_facts() now (seconds on real hardware); fails as floor_facts_from.
Result<FloorFacts> measure_floor_facts(Target& target);

// The values of two measurements taken around some readings, each fact's the mean of its two:
// the floor facts of the minutes in between. Requires every name of `before` in `after`
// (std::out_of_range otherwise).
std::map<std::string, double> mean_floor_facts(const FloorFacts& before, const FloorFacts& after);

// "read_bandwidth 63.1 then 60.2 GB/s, decode_ceiling.f8 ...": the two measurements of the facts
// in `names` (e.g. Target::floor_facts), in the target's order, for a method line.
std::string before_and_after_text(const FloorFacts& before, const FloorFacts& after,
                                  const std::vector<std::string>& names);

}  // namespace headway::targets
