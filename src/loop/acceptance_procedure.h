#pragma once
// The acceptance test's procedure on a target, without a workspace: the paired device over every
// shape set of a kernel, the rule's prior from a warm-up, the decision, a FASTER's confirmation
// and the effect. The loop's AcceptanceTest (loop/acceptance.h) runs it and stores what it
// measured; `headway compare` runs it alone. Both give the same verdict for the same inputs.
#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>

#include "common/result.h"
#include "kernels/contract.h"
#include "statistics/confirmation.h"
#include "statistics/outcome.h"
#include "statistics/pair_runner.h"
#include "statistics/rule_kind.h"
#include "targets/target.h"

namespace headway::loop {

struct AcceptanceOptions {
  // The decision rule; the others than betting are kept for ablations (statistics/rule_kind.h).
  statistics::RuleKind rule = statistics::RuleKind::kBetting;
  double alpha = 0.05;
  int cap = 24;               // pairs at most (betting)
  int warmup_readings = 10;   // readings that estimate the betting rule's prior scale s0, where
                              // no earlier test against the head gave one
  double fallback_s0 = 0.02;  // the prior when the warm-up cannot estimate one
  // Before FASTER stands, the candidate's calls the device must have verified, more runs until
  // it has, at most confirm_max_pairs of them (statistics/confirmation.h; devices that do not
  // count run none). The default runs reach the default calls at one call a reading (ffn's
  // batches), so that every kernel meets the bound of kWrongShare and kWrongEscape.
  int64_t confirm_calls =
      statistics::calls_to_catch(statistics::kWrongShare, statistics::kWrongEscape);
  int confirm_max_pairs = static_cast<int>(
      statistics::calls_to_catch(statistics::kWrongShare, statistics::kWrongEscape));
  // Mixed into the paired device's seed and the coin of each pair's order (OptimizeOptions::seed);
  // 0: the candidate's id and the test's id alone.
  uint64_t run_seed = 0;
};

// The paired device of `head` and `candidate` at every timed shape set of `kernel` (never a
// check-only one: kernels/contract.h, timed_shape_sets): one shape set's device, or a device that
// runs each pair at a shape set drawn at random (statistics/mixed_paired_device.h). `seed` draws
// the inputs and the shape sets. The error is the target's.
Result<std::unique_ptr<statistics::PairedDevice>> open_paired_device(
    targets::Target& target, const KernelContract& kernel, const targets::Artifact& head,
    const targets::Artifact& candidate, uint64_t seed);

struct PairedVerdict {
  statistics::DecisionRecord record;
  statistics::Confirmation confirmation;
  statistics::RuleSettings settings;  // as decided by: s0 is the prior the test started from
  int warmup_readings = 0;            // head readings that estimated s0
  // The candidate against the head, in percent of the head's time it saves (positive: faster),
  // the median and an interval of `ci_coverage` around it. Every view says effects this way.
  double effect_pct = 0.0;
  double ci_low_pct = 0.0;
  double ci_high_pct = 0.0;
  double ci_coverage = 0.0;
  // Why the test stopped before its cap, then how a FASTER was confirmed; empty when neither.
  std::string note;
};

// Runs the test on `device`: the warm-up where the rule takes a prior and `known_s0` is empty,
// the decision and a FASTER's confirmation (statistics::decide_and_confirm) with every reading
// told to `sink`, the order of each pair from `coin`. `progress`, when given, is told where the
// test stands at most every 250 ms and at each turn: "acceptance test, pair 5 of at most 24: FASTER
// wealth 3.2 of 20, SLOWER 0.31", then "FASTER at pair 6, confirming: 312 of 688 calls verified".
// An error names a rule setting out of range. Throws what the device throws:
// statistics::ArmDisqualified when an arm breaks a rule of timing, targets::DeviceStopped.
Result<PairedVerdict> run_paired_test(statistics::PairedDevice& device,
                                      const AcceptanceOptions& options,
                                      std::optional<double> known_s0, Rng& coin,
                                      const statistics::PairLabel& label,
                                      statistics::ReadingSink& sink,
                                      const std::function<void(const std::string&)>& progress = {});

}  // namespace headway::loop
