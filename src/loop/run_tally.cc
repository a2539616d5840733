#include "loop/run_tally.h"

namespace headway::loop {

int RunTally::rounds_started(const std::string& kernel) const {
  const auto it = rounds_started_.find(kernel);
  return it == rounds_started_.end() ? 0 : it->second;
}

void RunTally::round_ended(const std::string& kernel, const std::optional<RoundCounts>& counts) {
  ++summary_.rounds;
  if (!counts) {
    nothing_left_.insert(kernel);
    return;
  }
  summary_.tests += counts->tests;
  summary_.accepted += counts->accepted;
  summary_.cheated += counts->cheated;
  summary_.cost_rejected += counts->cost_rejected;
}

void RunTally::kernel_stopped(const std::string& kernel, const std::string& why, bool registered) {
  if (registered) ++summary_.rounds;
  summary_.kernels_stopped[kernel] = why;
}

bool RunTally::device_stopped(const std::string& why) {
  if (!summary_.device_stopped.empty()) return false;
  summary_.device_stopped = why;
  return true;
}

KernelStanding RunTally::standing(const std::string& kernel) const {
  KernelStanding k;
  k.name = kernel;
  k.rounds_started = rounds_started(kernel);
  k.stopped = summary_.kernels_stopped.count(kernel) > 0;
  k.nothing_left = nothing_left_.count(kernel) > 0;
  return k;
}

}  // namespace headway::loop
