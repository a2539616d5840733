#include "targets/cpu/cpu_timing.h"

#include <algorithm>

#include "common/stats.h"

namespace headway::cpu {

std::unique_ptr<TimedKernel> TimedKernel::start(const KernelContract& kernel,
                                                const std::filesystem::path& shared_object,
                                                const ProcessLimits& limits, uint64_t seed,
                                                CallResult* failure) {
  auto inputs = std::make_shared<Inputs>(kernel);
  kernel.generate(seed, inputs->buffers);
  for (size_t r = 0; r < inputs->buffers.specs().size(); ++r) {
    if (inputs->buffers.specs()[r].role != RegionRole::kInOut) continue;
    const auto b = inputs->buffers.bytes(r);
    inputs->inout.emplace_back(r, std::vector<std::byte>(b.begin(), b.end()));
  }
  std::unique_ptr<TimedKernel> timed(new TimedKernel(kernel, std::move(inputs)));
  timed->process_ =
      KernelProcess::start(kernel, shared_object, timed->inputs_->buffers, limits, failure);
  if (!timed->process_) return nullptr;
  return timed;
}

std::unique_ptr<TimedKernel> TimedKernel::start_sharing_inputs(
    const TimedKernel& other, const std::filesystem::path& shared_object,
    const ProcessLimits& limits, CallResult* failure) {
  std::unique_ptr<TimedKernel> timed(new TimedKernel(other.kernel_, other.inputs_));
  timed->process_ =
      KernelProcess::start(other.kernel_, shared_object, timed->inputs_->buffers, limits, failure);
  if (!timed->process_) return nullptr;
  return timed;
}

CallResult TimedKernel::reading() {
  for (const auto& [r, bytes] : inputs_->inout) {
    std::copy(bytes.begin(), bytes.end(), inputs_->buffers.bytes(r).begin());
  }
  return process_->call(true);
}

TimingResult time_candidate(const KernelContract& kernel,
                            const std::filesystem::path& shared_object, int readings,
                            const ProcessLimits& limits, uint64_t seed) {
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
