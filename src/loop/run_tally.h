#pragma once
// What a run has done so far, kernel by kernel: the rounds started and ended, what they decided,
// the kernels stopped or with nothing left to try, and the run's summary (loop/optimizer.h).
#include <map>
#include <optional>
#include <set>
#include <string>

#include "loop/optimizer.h"
#include "loop/round.h"
#include "loop/schedule.h"

namespace headway::loop {

// Not thread-safe: the caller serializes every call (the run's lock).
class RunTally {
 public:
  OptimizeSummary& summary() { return summary_; }

  void round_started(const std::string& kernel) { ++rounds_started_[kernel]; }
  // Rounds started on the kernel, the one under way included.
  int rounds_started(const std::string& kernel) const;
  // A round ended having decided `counts`, or nullopt: the kernel had nothing left to try, and
  // gets no round until something_new.
  void round_ended(const std::string& kernel, const std::optional<RoundCounts>& counts);
  // New proposals wait for the kernel (asked for ahead), or for every kernel (after a pause, a
  // head may have fallen back).
  void something_new(const std::string& kernel) { nothing_left_.erase(kernel); }
  void something_new_for_all() { nothing_left_.clear(); }
  // The kernel can go no further in this run; a registered kernel's stop counts as a round.
  void kernel_stopped(const std::string& kernel, const std::string& why, bool registered);
  // The device stopped; true the first time (later stops are the same stop seen by other rounds).
  bool device_stopped(const std::string& why);
  void proposed(int nodes) { summary_.proposed += nodes; }

  // The kernel as the scheduler sees it, without its figures (head_ms, floor_ms) and in_flight.
  KernelStanding standing(const std::string& kernel) const;

 private:
  OptimizeSummary summary_;
  std::map<std::string, int> rounds_started_;
  std::set<std::string> nothing_left_;
};

}  // namespace headway::loop
