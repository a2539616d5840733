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

std::vector<TimingResult> time_side_by_side(
    const KernelContract& kernel, const std::vector<std::filesystem::path>& shared_objects,
    int readings, const ProcessLimits& limits, uint64_t seed) {
  const size_t n = shared_objects.size();
  std::vector<TimingResult> results(n);
  auto fail_all = [&](const CallResult& failure) {
    for (auto& r : results) {
      r.failure = failure;
      r.median_seconds = 0.0;
      r.cv = 0.0;
    }
    return results;
  };
  std::vector<std::unique_ptr<TimedKernel>> timed;
  for (const auto& object : shared_objects) {
    CallResult failure;
    timed.push_back(timed.empty() ? TimedKernel::start(kernel, object, limits, seed, &failure)
                                  : TimedKernel::start_sharing_inputs(*timed.front(), object, limits, &failure));
    if (!timed.back()) return fail_all(failure);
  }
  for (int round = -2; round < readings; ++round) {
    for (size_t k = 0; k < n; ++k) {
      const size_t i = (static_cast<size_t>(round + 2) + k) % n;
      const CallResult r = timed[i]->reading();
      if (!r.ok()) return fail_all(r);
      if (round >= 0) results[i].seconds.push_back(r.seconds);
    }
  }
  for (auto& r : results) {
    r.median_seconds = median(r.seconds);
    r.cv = coefficient_of_variation(r.seconds);
  }
  return results;
}

}  // namespace headway::cpu
