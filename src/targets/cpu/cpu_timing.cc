#include "targets/cpu/cpu_timing.h"

#include <fmt/format.h>

#include "common/stats.h"

namespace headway::cpu {

std::string TimingResult::describe() const {
  if (cheat)
    return fmt::format("candidate {} broke the rules of timing: {}", cheat->arm + 1, cheat->reason);
  return failure.describe();
}

TimingResult time_candidate(const KernelContract& kernel,
                            const std::filesystem::path& shared_object, int readings,
                            const ProcessLimits& limits, uint64_t seed) {
  return time_side_by_side(kernel, {shared_object}, readings, limits, seed).front();
}

std::vector<TimingResult> time_side_by_side(
    const KernelContract& kernel, const std::vector<std::filesystem::path>& shared_objects,
    int readings, const ProcessLimits& limits, uint64_t seed) {
  const size_t n = shared_objects.size();
  std::vector<TimingResult> results(n);
  auto fail_all = [&](const CallResult& failure, const std::optional<Misbehaviour>& cheat) {
    for (auto& r : results) {
      r.failure = failure;
      r.cheat = cheat;
      r.median_seconds = 0.0;
      r.cv = 0.0;
    }
    return results;
  };
  SessionOptions options;
  options.limits = limits;
  options.seed = seed;
  CallResult failure;
  auto session = TimedSession::start(kernel, shared_objects, options, &failure);
  if (!session) return fail_all(failure, std::nullopt);
  for (int round = 0; round < readings; ++round) {
    for (size_t k = 0; k < n; ++k) {
      const size_t i = (static_cast<size_t>(round) + k) % n;
      const SessionReading r = session->reading(static_cast<int>(i));
      if (!r.ok()) return fail_all(r.call, r.cheat);
      results[i].seconds.push_back(r.call.seconds);
    }
  }
  if (auto cheat = session->verify_sampled()) return fail_all({}, cheat);
  for (auto& r : results) {
    r.median_seconds = median(r.seconds);
    r.cv = coefficient_of_variation(r.seconds);
    r.costs = session->costs();
    r.round_trip_seconds = session->round_trip_seconds();
  }
  return results;
}

}  // namespace headway::cpu
