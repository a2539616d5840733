#include "targets/cpu/cpu_timing.h"

#include <algorithm>
#include <utility>

#include "common/stats.h"

namespace headway::cpu {

TimingResult time_candidate(const KernelContract& kernel, const std::filesystem::path& shared_object,
                            int readings, const ProcessLimits& limits, uint64_t seed) {
  TimingResult result;
  SharedBuffers buffers(kernel.regions());
  kernel.generate(seed, buffers);
  // In/out regions are put back before every call so that every reading sees the same inputs.
  std::vector<std::pair<size_t, std::vector<std::byte>>> inout;
  for (size_t r = 0; r < buffers.specs().size(); ++r) {
    if (buffers.specs()[r].role != RegionRole::kInOut) continue;
    const auto b = buffers.bytes(r);
    inout.emplace_back(r, std::vector<std::byte>(b.begin(), b.end()));
  }
  auto call = [&](auto& process) {
    for (const auto& [r, bytes] : inout) std::copy(bytes.begin(), bytes.end(), buffers.bytes(r).begin());
    result.failure = process->call(true);
    return result.failure.ok();
  };
  auto process = KernelProcess::start(kernel, shared_object, buffers, limits, &result.failure);
  if (!process) return result;
  for (int warm = 0; warm < 2; ++warm) {
    if (!call(process)) return result;
  }
  for (int i = 0; i < readings; ++i) {
    if (!call(process)) return result;
    result.seconds.push_back(result.failure.seconds);
  }
  result.median_seconds = median(result.seconds);
  result.cv = coefficient_of_variation(result.seconds);
  return result;
}

}  // namespace headway::cpu
