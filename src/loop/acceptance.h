#pragma once
// The acceptance test of one candidate against its kernel's head: paired readings on one device
// (Target::paired_device) in a randomized order, decided by the betting rule
// (statistics/betting_rule.h; or another of statistics/rule_kind.h) as FASTER, SLOWER, SAME or
// INCONCLUSIVE; FASTER, once enough of the candidate's calls are verified
// (statistics/confirmation.h), makes the candidate the head (trees::DecisionLog::finish_test, which
// refuses it when the head changed since the test began).
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
#include "statistics/confirmation.h"
#include "statistics/outcome.h"
#include "statistics/rule_kind.h"
#include "targets/target.h"
#include "trees/design_tree.h"

namespace headway::loop {

struct AcceptanceOptions {
  // The decision rule; the others than betting are kept for ablations (statistics/rule_kind.h).
  statistics::RuleKind rule = statistics::RuleKind::kBetting;
  double alpha = 0.05;
  int cap = 24;               // pairs at most (betting)
  int warmup_readings = 10;   // readings that estimate the betting rule's prior scale s0, in
                              // the first test against a head (later ones take its s0)
  double fallback_s0 = 0.02;  // the prior when the warm-up cannot estimate one
  // Before FASTER stands, the candidate's calls the device must have verified, more pairs run
  // until it has, at most confirm_max_pairs of them (statistics/confirmation.h; devices that do
  // not count run none). The default pairs reach the default calls at one call a reading (ffn's
  // batches), so that every kernel meets the bound of kWrongShare and kWrongEscape.
  int64_t confirm_calls =
      statistics::calls_to_catch(statistics::kWrongShare, statistics::kWrongEscape);
  int confirm_max_pairs = static_cast<int>(
      statistics::calls_to_catch(statistics::kWrongShare, statistics::kWrongEscape));
  // Mixed into the paired device's seed and the coin of each pair's order (OptimizeOptions::seed);
  // 0: the candidate's id and the test's id alone.
  uint64_t run_seed = 0;
};

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
  // after a stop counts); std::runtime_error when the paired device cannot start or the decision
  // cannot be stored.
  AcceptanceResult run(const trees::Node& head, const targets::Artifact& head_artifact,
                       const trees::Node& candidate, const targets::Artifact& candidate_artifact);
  // Where the test stands, told while it runs (at most every kProgressInterval, and at its
  // decision): "pair 5 of at most 24: FASTER wealth 3.2 of 20, SLOWER 0.31", then, once FASTER,
  // "FASTER at pair 6, confirming: 312 of 688 calls verified".
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
