#pragma once
// Timed readings of a built candidate on the host CPU.
#include <cstdint>
#include <filesystem>
#include <memory>
#include <utility>
#include <vector>

#include "kernels/contract.h"
#include "targets/cpu/kernel_process.h"

namespace headway::cpu {

// A candidate in its own process with its own inputs (from `seed`), ready to be timed.
// Every reading first puts back the in/out regions (so every call sees the same inputs) and
// flushes the last-level cache (so weights come from memory).
class TimedKernel {
 public:
  // nullptr with *failure set when the runner cannot start or load the object.
  static std::unique_ptr<TimedKernel> start(const KernelContract& kernel,
                                            const std::filesystem::path& shared_object,
                                            const ProcessLimits& limits, uint64_t seed,
                                            CallResult* failure);
  CallResult reading();

 private:
  explicit TimedKernel(const KernelContract& kernel);
  SharedBuffers buffers_;
  std::unique_ptr<KernelProcess> process_;
  std::vector<std::pair<size_t, std::vector<std::byte>>> inout_;
};

struct TimingResult {
  CallResult failure;            // !failure.ok(): the run failed and seconds is incomplete
  std::vector<double> seconds;   // one per reading
  double median_seconds = 0.0;
  double cv = 0.0;
  bool ok() const { return failure.ok(); }
};

// Two warm-up readings, then `readings` timed ones.
TimingResult time_candidate(const KernelContract& kernel, const std::filesystem::path& shared_object,
                            int readings, const ProcessLimits& limits, uint64_t seed = 1);

// Several built candidates of one kernel timed in one session, each in its own process with the
// same inputs (`seed`): two warm-up readings each, then `readings` rounds of one reading each,
// the order rotating from round to round (round r starts with candidate r mod n), so that drift
// of the machine falls on all of them alike. One result per object, in order; when one fails to
// start or fails a reading, every result carries that failure (and no median).
std::vector<TimingResult> time_side_by_side(
    const KernelContract& kernel, const std::vector<std::filesystem::path>& shared_objects,
    int readings, const ProcessLimits& limits, uint64_t seed = 1);

}  // namespace headway::cpu
