#include "targets/cpu/cpu_timing.h"

#include <algorithm>

#include "common/stats.h"

namespace headway::cpu {

TimedKernel::TimedKernel(const KernelContract& kernel) : buffers_(kernel.regions()) {}

std::unique_ptr<TimedKernel> TimedKernel::start(const KernelContract& kernel,
                                                const std::filesystem::path& shared_object,
                                                const ProcessLimits& limits, uint64_t seed,
                                                CallResult* failure) {
  std::unique_ptr<TimedKernel> timed(new TimedKernel(kernel));
  kernel.generate(seed, timed->buffers_);
  for (size_t r = 0; r < timed->buffers_.specs().size(); ++r) {
    if (timed->buffers_.specs()[r].role != RegionRole::kInOut) continue;
    const auto b = timed->buffers_.bytes(r);
    timed->inout_.emplace_back(r, std::vector<std::byte>(b.begin(), b.end()));
  }
  timed->process_ = KernelProcess::start(kernel, shared_object, timed->buffers_, limits, failure);
  if (!timed->process_) return nullptr;
  return timed;
}

CallResult TimedKernel::reading() {
  for (const auto& [r, bytes] : inout_) std::copy(bytes.begin(), bytes.end(), buffers_.bytes(r).begin());
  return process_->call(true);
}

TimingResult time_candidate(const KernelContract& kernel, const std::filesystem::path& shared_object,
                            int readings, const ProcessLimits& limits, uint64_t seed) {
  TimingResult result;
  auto timed = TimedKernel::start(kernel, shared_object, limits, seed, &result.failure);
  if (!timed) return result;
  for (int i = -2; i < readings; ++i) {
    result.failure = timed->reading();
    if (!result.failure.ok()) return result;
    if (i >= 0) result.seconds.push_back(result.failure.seconds);
  }
  result.median_seconds = median(result.seconds);
  result.cv = coefficient_of_variation(result.seconds);
  return result;
}

}  // namespace headway::cpu
