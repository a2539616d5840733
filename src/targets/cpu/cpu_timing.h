#pragma once
// Timed readings of a built candidate on the host CPU.
#include <cstdint>
#include <filesystem>
#include <vector>

#include "kernels/contract.h"
#include "targets/cpu/kernel_process.h"

namespace headway::cpu {

struct TimingResult {
  CallResult failure;            // !failure.ok(): the run failed and seconds is incomplete
  std::vector<double> seconds;   // one per reading
  double median_seconds = 0.0;
  double cv = 0.0;
  bool ok() const { return failure.ok(); }
};

// Runs the candidate in its own process on inputs from `seed`: two warm-up calls, then
// `readings` calls, each after the last-level cache was flushed by reading a larger buffer, so
// that weights come from memory.
TimingResult time_candidate(const KernelContract& kernel, const std::filesystem::path& shared_object,
                            int readings, const ProcessLimits& limits, uint64_t seed = 1);

}  // namespace headway::cpu
