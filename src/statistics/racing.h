#pragma once
// Racing before the acceptance test: successive halving picks one challenger among many
// variants on a budget of readings. Racing ranks; only the acceptance test decides.
#include <cstdint>
#include <functional>
#include <vector>

#include "common/result.h"

namespace headway::statistics {

struct RaceConfig {
  int64_t budget = 0;        // readings, all candidates together; >= candidates * initial_readings
  int initial_readings = 3;  // r of the first round; >= 1
};

struct RaceResult {
  std::vector<int> ranking;     // candidate indices, best (lowest median time) first
  std::vector<double> medians;  // per candidate index: median of its readings; NaN if none
  std::vector<int> readings;    // per candidate index: readings taken
  int64_t readings_spent = 0;   // <= budget
  int rounds = 0;
};

// Successive halving: each round every survivor gets r more readings (taken round-robin across
// survivors, so that slow drift touches all alike), survivors are ranked by the median of all
// their readings, the better ceil(half) stays and r doubles; it ends with one survivor or when
// the budget cannot give every survivor one more reading (a last round gets as many readings as
// the budget allows). The ranking lists the last survivors by median, then each earlier round's
// eliminated by median, later rounds first. `read(i)` returns one reading of candidate i in
// seconds. Errors: candidates < 1, initial_readings < 1, budget below candidates *
// initial_readings.
Result<RaceResult> race(int candidates, const RaceConfig& config,
                        const std::function<double(int)>& read);

}  // namespace headway::statistics
