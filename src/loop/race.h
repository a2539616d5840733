#pragma once
// The race of one round: a kernel's screened candidates read over the same inputs on one
// session of the target, ranked by successive halving (statistics/racing.h), so that only the
// fastest goes to the acceptance test. Racing ranks; it never decides a head.
//
// On a target that times on this machine's shared cores, entrants whose medians lie within
// one_core_tie_pct of the winner's are tied: the memory may cap them all at the hour's bandwidth,
// and which is fastest when more bandwidth comes depends on what one core does with the kernel.
// They are ranked again by one core's readings (Target::time_on_one_core), read side by side in a
// session of their own; where the target cannot take those, or one fails, the race's order stands.
//
// A Race holds no state of the loop: it needs a target, the kernel and its Design Tree, and
// stores the race and every reading in the tree's race log (trees/race_log.h) and its wall
// time in the kernel's device time (loop/device_time.h). Races of different kernels, each on
// its own target instance, can run at once.
#include <cstdint>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

#include "common/result.h"
#include "kernels/contract.h"
#include "targets/one_core_ties.h"
#include "targets/target.h"
#include "trees/design_tree.h"

namespace headway::loop {

struct RaceOptions {
  int initial_readings = 3;       // readings of every entrant in the first round; >= 1
  int64_t budget = 40;            // readings, all entrants together; raised to entrants x initial
  uint64_t seed = 1;              // of the race's session (Target::start_session)
  double one_core_tie_pct = 5.0;  // 0: no one-core tie-break
  int one_core_readings = 5;      // readings of each tied entrant on one core
};

struct RaceEntrant {
  int64_t node_id = 0;
  targets::Artifact artifact;
};

struct RaceResult {
  int64_t race_id = 0;          // in the kernel's race log
  std::vector<int> ranking;     // entrant indices, fastest first
  std::vector<double> medians;  // per entrant, seconds; infinite when it never read
  std::vector<std::optional<std::string>> cheated;  // per entrant: why it broke a rule
  std::optional<double> head_median;  // the head's median (seconds) when it ran and read
  // Per entrant: its median on one core (seconds) where a tie was broken so; else empty.
  std::vector<std::optional<double>> one_core_medians;
  double seconds = 0.0;  // wall time of the race
  // The fastest entrant, or nullopt when every entrant broke a rule.
  std::optional<int> winner() const;
};

class Race {
 public:
  // Every reference must outlive the race.
  Race(targets::Target& target, const KernelContract& kernel, trees::DesignTree& tree,
       RaceOptions options)
      : target_(target), kernel_(kernel), tree_(tree), options_(options) {}

  // Races `entrants` (at least one) over the same inputs. With `head`, the head runs in the
  // session too as an extra arm, not ranked, read initial_readings times after the race (its
  // median is the reference of the static cost's calibration). An entrant whose reading fails or
  // whose kept outputs fail verification is `cheated`, ranked last; entrants are verified in the
  // race's order (Session::verify_arm) until one is found right, the losers behind it not at all.
  // Errors: the session cannot start, or the options cannot race this many entrants.
  // Throws targets::DeviceStopped from the device; the race is then left unfinished in the log
  // (trees::RaceLog::abandon_unfinished_races removes it).
  Result<RaceResult> run(const std::vector<RaceEntrant>& entrants,
                         const std::optional<RaceEntrant>& head);

 private:
  // Ranks again, by one core's readings, the entrants at the front of result->ranking that lie
  // within one_core_tie_pct of the winner (see the file comment); the one-core timing, or
  // nullopt when there was none.
  std::optional<targets::OneCoreTies> break_tie_on_one_core(
      const std::vector<RaceEntrant>& entrants, RaceResult* result);

  targets::Target& target_;
  const KernelContract& kernel_;
  trees::DesignTree& tree_;
  RaceOptions options_;
};

}  // namespace headway::loop
