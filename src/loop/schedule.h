#pragma once
// Which kernel the loop's next round goes to, from plain figures: no workspace, no clock.
#include <optional>
#include <string>
#include <vector>

namespace headway::loop {

// One kernel of the run as the scheduler sees it.
struct KernelStanding {
  std::string name;
  // The head's time and the floor, in milliseconds. Read only when the kernel is eligible (none
  // of the flags below set) and floor guidance is on; else ignored.
  double head_ms = 0.0;
  double floor_ms = 0.0;
  int rounds_started = 0;
  bool stopped = false;       // it can go no further in this run (KernelStopped)
  bool nothing_left = false;  // its proposer had nothing left to try
  bool in_flight = false;     // a round on it is under way
};

struct ScheduleRules {
  bool floor_guidance = true;      // OptimizeOptions::floor_guidance
  double done_within_floor = 1.0;  // OptimizeOptions::done_within_floor
};

struct NextKernel {
  std::optional<size_t> index;          // into the kernels given; nullopt: none gets a round
  std::vector<std::string> near_floor;  // eligible kernels left alone within done_within_floor
};

// With floor guidance: the eligible kernel whose head exceeds its floor by the most milliseconds
// (the most a decode step can still gain from it; the first of equals in the order given); a
// kernel whose head is within done_within_floor times its floor gets no round and is listed in
// near_floor. Without: the eligible kernel with the fewest rounds started (the first of equals),
// and near_floor stays empty. A kernel stopped, with nothing left or with a round in flight is
// not eligible.
NextKernel next_kernel(const std::vector<KernelStanding>& kernels, const ScheduleRules& rules);

}  // namespace headway::loop
