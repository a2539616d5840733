#pragma once
// The floor of a timing's own seconds. On a target whose floor facts move with the hour
// (Target::times_on_host: a shared host, whose read bandwidth changes spell within seconds; the
// EPYC's reads 34-37 GB/s in one spell and 58-71 in another, docs/PERFORMANCE.md), the floor
// facts are measured just before and just after each timing, and a timing whose floor moved
// between the two is done again. A measurement after one timing is the next timing's before, so
// n timings in a row take n + 1 measurements. On other targets the facts are measured once, before
// the first timing, and serve every timing.
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "common/result.h"
#include "kernels/contract.h"
#include "targets/floor_facts.h"
#include "targets/target.h"

namespace headway::targets {

struct FloorBracketOptions {
  // The floor held when every kernel's memory floor from the measurement before and from the one
  // after differ by at most this share of the smaller (two measurements in one spell differ by
  // a few percent on the EPYC; its spells by 60% or more).
  double held_within = 0.15;
  int max_timings = 3;  // a timing whose floor moved (or was beaten) is done at most this often
  // The facts measured (empty: Target::floor_facts(); Target::memory_floor_facts() where only
  // memory floors are read).
  std::vector<std::string> facts;
  // Timed readings per benchmark of each measurement (FactOptions::readings).
  int readings = FactOptions{}.readings;
};

// The floor one timing is judged against.
struct BracketedFloor {
  // Each fact the larger of its measurements before and after the timing kept (floor facts are
  // rates: the faster spell gives the lower floor; repeats: those two, or the one measurement);
  // each fact's method says so.
  FloorFacts facts;
  bool around = false;     // measured before and after the timing; else once, before the first
  bool held = true;        // the memory floors before and after agree within held_within
  bool beaten = false;     // the last timing read faster than its floor (FloorBracket::around)
  int moved_timings = 0;   // timings whose floor moved, the last one included
  int beaten_timings = 0;  // timings whose floor held but whose readings beat it, the last included
  double moved = 0.0;      // the largest difference between them, as a share of the smaller
  int timings = 1;         // how many times the timing ran

  // "read_bandwidth 36.5 GB/s (36.1 before, 36.9 after)" for each fact in `names`, in the
  // target's order, joined by "; " (one measurement: no parenthesis).
  std::string text(const std::vector<std::string>& names) const;
  // "" where the first timing's floor held and was not beaten; "timed 2 times, the floor having
  // moved during the earlier ones" (or "the readings having beaten the floor", or both) where the
  // last one's held; "the floor moved by 63% during the readings in each of 3 timings" (or "...
  // of the last of 3 timings" where an earlier one was done again for its readings) where the
  // last did not hold; "the readings beat the floor in each of 3 timings" (or "the readings of
  // the last of 3 timings beat the floor") where they beat the last one's.
  std::string movement() const;
};

class FloorBracket {
 public:
  explicit FloorBracket(Target& target, FloorBracketOptions options = {});

  // Runs `timing`, which returns whether it succeeded, and gives the floor of its seconds for
  // `kernels` (their memory floors decide whether it held). A timing that failed is not done
  // again. With `beaten`, which says whether the timing just done read faster than the floor of
  // the facts it is given (below kBelowFloorRatio of it: a spell the measurements around it
  // missed), such a timing is done again as one whose floor moved is. A measurement that fails
  // (the target did not measure a floor fact) is the error; the timing may have run by then.
  Result<BracketedFloor> around(const std::vector<const KernelContract*>& kernels,
                                const std::function<bool()>& timing,
                                const std::function<bool(const FloorFacts&)>& beaten = {});

 private:
  Result<FloorFacts> measure();

  Target& target_;
  FloorBracketOptions options_;
  std::optional<FloorFacts> last_;  // the newest measurement: the next timing's before
};

}  // namespace headway::targets
