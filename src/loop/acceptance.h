#pragma once
// The acceptance test of one candidate against its kernel's head in the loop: the procedure of
// loop/acceptance_procedure.h (paired readings in a randomized order, decided by the betting rule
// or another of statistics/rule_kind.h as FASTER, SLOWER, SAME or INCONCLUSIVE, a FASTER
// confirmed), stored in the Design Tree; FASTER makes the candidate the head
// (trees::DecisionLog::finish_test, which refuses it when the head changed since the test began). A
// head's later tests start from the prior its first test's warm-up estimated.
//
// An AcceptanceTest holds no state of the loop: it needs a target, the kernel and its Design
// Tree, stores the test with every reading in the tree's decision log as it is taken, and adds
// its wall time to the kernel's device time (loop/device_time.h). Tests of different kernels,
// each on its own target instance, can run at once.
#include <cstdint>
#include <functional>
#include <optional>
#include <string>

#include "kernels/contract.h"
#include "loop/acceptance_procedure.h"
#include "statistics/outcome.h"
#include "targets/target.h"
#include "trees/design_tree.h"

namespace headway::loop {

struct AcceptanceResult {
  // The decision, or nullopt when an arm broke a rule of timing: the candidate
  // (`disqualified` says how) or the head (`head_disqualified`); then the test is deleted, as
  // it has no outcome.
  std::optional<statistics::Outcome> outcome;
  std::string disqualified;
  std::string head_disqualified;
  int64_t test_id = 0;  // 0 when disqualified
  int pairs = 0;
  std::optional<double> effect_pct;  // candidate against head, percent time saved
  double seconds = 0.0;              // wall time of the test
  int warmup_readings = 0;  // head readings that estimated s0: none where an earlier finished
                            // test against the same head gave its s0, or the rule takes none
};

class AcceptanceTest {
 public:
  // Every reference must outlive the test.
  AcceptanceTest(targets::Target& target, const KernelContract& kernel, trees::DesignTree& tree,
                 AcceptanceOptions options)
      : target_(target), kernel_(kernel), tree_(tree), options_(options) {}

  // Tests `candidate` against `head` (the tree's head when called). Throws
  // targets::DeviceStopped from the device, after deleting the unfinished test (nothing measured
  // after a stop counts); a Failure (common/result.h) with the error's code when the paired device
  // cannot start or the decision cannot be stored.
  AcceptanceResult run(const trees::Node& head, const targets::Artifact& head_artifact,
                       const trees::Node& candidate, const targets::Artifact& candidate_artifact);
  // Where the test stands, told while it runs (run_paired_test's `progress`).
  void on_progress(std::function<void(const std::string&)> progress) {
    progress_ = std::move(progress);
  }

 private:
  targets::Target& target_;
  const KernelContract& kernel_;
  trees::DesignTree& tree_;
  AcceptanceOptions options_;
  std::function<void(const std::string&)> progress_;
};

}  // namespace headway::loop
