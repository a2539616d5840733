#include "loop/schedule.h"

#include <limits>

namespace headway::loop {

NextKernel next_kernel(const std::vector<KernelStanding>& kernels, const ScheduleRules& rules) {
  NextKernel next;
  double most = -1.0;
  int fewest = std::numeric_limits<int>::max();
  for (size_t i = 0; i < kernels.size(); ++i) {
    const KernelStanding& k = kernels[i];
    if (k.stopped || k.nothing_left || k.in_flight) continue;
    if (!rules.floor_guidance) {
      if (k.rounds_started < fewest) {
        fewest = k.rounds_started;
        next.index = i;
      }
      continue;
    }
    if (k.head_ms <= rules.done_within_floor * k.floor_ms) {
      next.near_floor.push_back(k.name);
      continue;
    }
    const double saving = k.head_ms - k.floor_ms;
    if (saving > most) {
      most = saving;
      next.index = i;
    }
  }
  return next;
}

}  // namespace headway::loop
