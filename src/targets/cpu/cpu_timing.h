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
  // Another runner over the same input pages as `other` (same physical memory, so the two are
  // timed on equal terms: no difference in page placement between them). Readings of the two
  // must not overlap; the inputs are shared, so `shared_object` must be one that passed the
  // check (it does not write its inputs).
  static std::unique_ptr<TimedKernel> start_sharing_inputs(
      const TimedKernel& other, const std::filesystem::path& shared_object,
      const ProcessLimits& limits, CallResult* failure);
  CallResult reading();
  // The input pages the runner calls the kernel on.
  const SharedBuffers& buffers() const { return inputs_->buffers; }

 private:
  struct Inputs {
    explicit Inputs(const KernelContract& kernel) : buffers(kernel.regions()) {}
    SharedBuffers buffers;
    std::vector<std::pair<size_t, std::vector<std::byte>>> inout;  // region, initial bytes
  };
  TimedKernel(const KernelContract& kernel, std::shared_ptr<Inputs> inputs)
      : kernel_(kernel), inputs_(std::move(inputs)) {}
  const KernelContract& kernel_;
  std::shared_ptr<Inputs> inputs_;
  std::unique_ptr<KernelProcess> process_;  // declared last: stops before the inputs go
};

struct TimingResult {
  CallResult failure;           // !failure.ok(): the run failed and seconds is incomplete
  std::vector<double> seconds;  // one per reading
  double median_seconds = 0.0;
  double cv = 0.0;
  bool ok() const { return failure.ok(); }
};

// Two warm-up readings, then `readings` timed ones.
TimingResult time_candidate(const KernelContract& kernel,
                            const std::filesystem::path& shared_object, int readings,
                            const ProcessLimits& limits, uint64_t seed = 1);

// Several built candidates of one kernel timed in one session, each in its own process over the
// same input pages (`seed`; TimedKernel::start_sharing_inputs): two warm-up readings each, then
// `readings` rounds of one reading each, the order rotating from round to round (round r starts
// with candidate r mod n), so that drift of the machine falls on all of them alike. One result per
// object, in order; when one fails to start or fails a reading, every result carries that failure
// (and no median).
std::vector<TimingResult> time_side_by_side(
    const KernelContract& kernel, const std::vector<std::filesystem::path>& shared_objects,
    int readings, const ProcessLimits& limits, uint64_t seed = 1);

}  // namespace headway::cpu
