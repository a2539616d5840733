#pragma once
// Timed readings of built candidates on the host CPU (each reading a TimedSession reading: a
// fresh sandboxed process, cold caches, headway's clock, verified calls).
#include <cstdint>
#include <filesystem>
#include <optional>
#include <vector>

#include "kernels/contract.h"
#include "targets/cpu/timed_session.h"

namespace headway::cpu {

struct TimingResult {
  CallResult failure;                 // !failure.ok(): the run failed and seconds is incomplete
  std::optional<Misbehaviour> cheat;  // set: a candidate broke a rule of the session
  std::vector<double> seconds;        // one per reading
  double median_seconds = 0.0;
  double cv = 0.0;
  SessionCosts costs;               // of the whole session
  double round_trip_seconds = 0.0;  // median empty call
  bool ok() const { return failure.ok() && !cheat; }
  std::string describe() const;  // the failure or the breach, one line
};

// `readings` timed readings of one object.
TimingResult time_candidate(const KernelContract& kernel,
                            const std::filesystem::path& shared_object, int readings,
                            const ProcessLimits& limits, uint64_t seed = 1);

// Several built candidates of one kernel timed in one session: `readings` rounds of one reading
// each, the order rotating from round to round (round r starts with candidate r mod n), so that
// drift of the machine falls on all of them alike; then the kept calls are verified. One result
// per object, in order; when one fails or breaks a rule, every result carries that (and no
// median).
std::vector<TimingResult> time_side_by_side(
    const KernelContract& kernel, const std::vector<std::filesystem::path>& shared_objects,
    int readings, const ProcessLimits& limits, uint64_t seed = 1);

}  // namespace headway::cpu
