#pragma once
// A run's clock and its progress lines: the budget (paused time does not count), the elapsed time
// shown, every registered kernel's head with each line, and where the lines go (the progress
// callback and the workspace's run record, loop/run_record.h).
#include <chrono>
#include <functional>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "loop/kernel_trees.h"
#include "loop/optimizer.h"
#include "loop/run_record.h"
#include "store/workspace.h"
#include "trees/design_tree.h"

namespace headway::loop {

// Not thread-safe: the caller serializes every call (the run's lock). `kernels` (the run's, in
// its order) and `trees` must outlive it.
class RunProgress {
 public:
  using Clock = std::chrono::steady_clock;

  // The clock starts now. `on_progress` may be empty.
  RunProgress(std::chrono::duration<double> budget,
              std::function<void(const Progress&)> on_progress,
              const std::vector<std::string>& kernels, KernelTrees& trees)
      : budget_(budget),
        on_progress_(std::move(on_progress)),
        kernels_(kernels),
        trees_(trees),
        start_(Clock::now()) {}

  // Time spent paused counts neither against the budget nor in the elapsed time.
  void add_paused(double seconds);
  bool budget_spent() const { return Clock::now() - start_ - paused_ >= budget_; }
  double elapsed_s() const {
    return std::chrono::duration<double>(Clock::now() - start_ - paused_).count();
  }

  // From now on every line is also written to `ws`'s run record, which goes when this does.
  // Requires the workspace lock held (loop/workspace_pause.h); throws as RunRecorder does.
  void keep_record(store::Workspace& ws);
  // The kernel has a tree: its head shows in every line from now on (Progress::kernels).
  void registered(const std::string& kernel) { registered_.insert(kernel); }
  bool is_registered(const std::string& kernel) const { return registered_.count(kernel) > 0; }

  // A line about the loop itself rather than a kernel: "paused", "kernel stopped", ...
  void event(const std::string& stage, const std::string& note);
  // A step of a round on `kernel`'s `node`: "propose", "screen", ...
  void step(const std::string& kernel, const trees::Node& node, const std::string& stage);
  // Completes p with the clock (one reading gives elapsed_s and budget_left_s) and, when anyone
  // follows (a callback or a record), the registered kernels' heads, read again for p's own
  // kernel (its round may have changed its head); then publishes it.
  void report(Progress& p);

 private:
  std::chrono::duration<double> budget_;
  std::function<void(const Progress&)> on_progress_;
  const std::vector<std::string>& kernels_;
  KernelTrees& trees_;
  Clock::time_point start_;
  Clock::duration paused_{};
  std::set<std::string> registered_;
  std::optional<RunRecorder> record_;
};

}  // namespace headway::loop
