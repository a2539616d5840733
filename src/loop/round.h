#pragma once
// One round of the loop on one kernel: the proposed candidates are screened (loop/screen.h),
// where the target has a static cost the survivors it predicts clearly slower are not raced,
// the rest race (loop/race.h), and the winner's acceptance test (loop/acceptance.h) decides
// whether it replaces the head. Every status, race and test is stored as it is decided. With
// OptimizeOptions::racing off, every survivor takes a test instead.
//
// A Round knows nothing of scheduling, budgets or pauses: it asks its events whether to stop
// before each screened candidate and each test without racing, and says when the device starts
// timing.
#include <cstdint>
#include <filesystem>
#include <mutex>
#include <set>
#include <string>
#include <vector>

#include "loop/kernel_stopped.h"
#include "loop/optimize_options.h"
#include "store/workspace.h"
#include "trees/design_tree.h"

namespace headway::loop {

// What a round tells the run it belongs to.
class RoundEvents {
 public:
  virtual ~RoundEvents() = default;
  // A step on one node: "screen", "race of N", "acceptance test", an outcome, ...
  virtual void progress(const trees::Node& node, const std::string& stage) = 0;
  // Asked before each candidate is screened: true ends the round there (the rest stay proposed).
  virtual bool should_stop() = 0;
  // The device starts timing (a race or a test) of these nodes.
  virtual void timing_starts(const std::set<int64_t>& deciding) = 0;
};

// What the round decided, for the run's summary.
struct RoundCounts {
  int tests = 0;
  int accepted = 0;
  int cheated = 0;        // candidates disqualified under timing
  int cost_rejected = 0;  // candidates not raced because the static cost predicted a loss
};

// The target's builds, one at a time (a run may also build from another thread).
struct SerialBuilds {
  targets::Target& target;
  std::filesystem::path cache;
  std::mutex& mutex;
  targets::BuildOutcome build(const std::string& source);
  // The artifact of a source that built before; throws a Failure (environment) when it does not.
  targets::Artifact artifact_of(const std::string& kernel, const std::string& source);
};

class Round {
 public:
  // Every reference must outlive the round.
  Round(store::Workspace& ws, SerialBuilds& builds, trees::DesignTree& tree,
        const OptimizeOptions& options, RoundEvents& events);

  // Decides `pending`, proposed nodes of the tree, against the head of the moment. Throws
  // targets::DeviceStopped from the device (what it interrupted is discarded), KernelStopped when
  // the baseline, as head, fails under timing, and a Failure (common/result.h) for other failures.
  RoundCounts run(const std::vector<trees::Node>& pending);

 private:
  struct Survivor {
    trees::Node node;
    targets::Artifact artifact;
    std::optional<double> predicted_pct;  // the static cost's predicted gain over the head
  };
  std::vector<Survivor> screen(const std::vector<trees::Node>& pending, bool* stopped);
  std::vector<Survivor> screen_by_static_cost(const targets::Artifact& head,
                                              std::vector<Survivor> survivors);
  std::optional<size_t> race(const trees::Node& head, const std::vector<Survivor>& survivors,
                             const std::optional<targets::Artifact>& head_artifact);
  void test(const trees::Node& head, const Survivor& candidate);
  void test_each(int64_t predicted_against, std::vector<Survivor>& survivors);
  void disqualify(const trees::Node& node, const std::string& reason);

  store::Workspace& ws_;
  SerialBuilds& builds_;
  trees::DesignTree& tree_;
  const OptimizeOptions& options_;
  RoundEvents& events_;
  const KernelContract& kernel_;
  RoundCounts counts_;
};

}  // namespace headway::loop
