#pragma once
// The chip facts a target's floors need (Target::floor_facts), measured now: for `headway bench`,
// and for the final side-by-side timing of `headway optimize` on a target whose floor facts move
// with the hour (Target::times_on_host: cores shared with other tenants), where one measurement
// catches whatever spell the machine is in and the median of several in a row does not.
#include <map>
#include <string>
#include <vector>

#include "common/result.h"
#include "targets/target.h"

namespace headway::targets {

struct FloorFacts {
  std::vector<ChipFact> measured;        // as the target measured them, in its order
  std::map<std::string, double> values;  // by name: what Target::floors takes
  // By name: every measurement's value in the order measured (one each for a single one).
  std::map<std::string, std::vector<double>> repeats;
};

// `measured` by name, or an environment error naming the first of `needed` that `target_name`
// did not measure.
Result<FloorFacts> floor_facts_from(std::vector<ChipFact> measured,
                                    const std::vector<std::string>& needed,
                                    const std::string& target_name);
// Measures target.floor_facts() `times` (>= 1) times in a row (seconds each on real hardware).
// Each fact is the median of its measurements, its method saying so; the facts are those of the
// first measurement. Fails as floor_facts_from when any measurement lacks a needed fact.
Result<FloorFacts> measure_floor_facts(Target& target, int times = 1);

// How many measurements measure_floor_facts takes for `target`'s floors now: 5 where its floor
// facts move with the hour (Target::times_on_host), else 1.
int floor_measurements(const Target& target);

// "read_bandwidth 66.1 GB/s (the median of 62.0, 65.3, 66.1, 67.0, 67.9)" for each fact in
// `names` (e.g. Target::floor_facts), in the target's order, joined by "; ".
std::string median_text(const FloorFacts& facts, const std::vector<std::string>& names);

}  // namespace headway::targets
