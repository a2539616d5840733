#pragma once
// Before a FASTER decision makes a candidate the head: more pairs, whose readings decide nothing,
// until the device has verified enough of the candidate's timed calls that a candidate wrong on
// a random share of its calls almost surely shows one. A test's own pairs may hold too few calls
// for that (a decision can end after a handful of pairs), and a wrong call that no verified
// reading held cannot be found.
#include <cstdint>
#include <functional>
#include <string>

#include "common/rng.h"
#include "statistics/decision_rule.h"
#include "statistics/pair_runner.h"

namespace headway::statistics {

// Verified calls that a candidate wrong on an independent random share `p` (0 < p < 1) of its
// calls passes all of with probability at most `escape` (0 < escape < 1):
// ceil(ln(escape) / ln(1 - p)).
int64_t calls_to_catch(double p, double escape);

// The share and escape probability the acceptance test is built for: a candidate wrong on 1% of
// its calls or more is caught before it becomes a head in at least 99.9% of its FASTER tests
// (688 verified calls).
inline constexpr double kWrongShare = 0.01;
inline constexpr double kWrongEscape = 0.001;

struct Confirmation {
  int pairs = 0;                // pairs run
  int readings = 0;             // readings of the candidate alone run
  int64_t verified_calls = -1;  // the candidate's verified calls at the end (-1: not counted)
  // "confirmed by ... (N of the candidate's calls verified)", or empty when nothing ran.
  std::string describe() const;
};

// Verifies the candidate's calls until device.verified_calls(Arm::kCandidate) reaches `calls`,
// with at most `max_runs` runs: readings of the candidate alone where the device has them
// (PairedDevice::run_confirming_reading), else pairs, their orders from `coin` and their readings
// kept nowhere. A device that does not count its verified calls runs none. Throws what the device
// throws (ArmDisqualified when a run shows an arm wrong).
// `after_run`, when given, is told the confirmation as it starts (nothing run yet) and after
// every run.
Confirmation confirm_candidate(PairedDevice& device, Rng& coin, int64_t calls, int max_runs,
                               const std::function<void(const Confirmation&)>& after_run = {});

struct ConfirmedDecision {
  DecisionRecord record;
  Confirmation confirmation;  // nothing run unless the record is FASTER
};

// The acceptance test's procedure, the same for the loop and `compare`: the decision
// (run_decision, `after_pair` told after each pair), a FASTER confirmed up to `calls` calls in
// at most `max_runs` runs (confirm_candidate, `after_run` told after each), then the device's
// kept readings verified (PairedDevice::verify_arms) before the outcome counts. Throws what the
// device throws (ArmDisqualified when an arm is found wrong: the decision then has no outcome).
ConfirmedDecision decide_and_confirm(
    PairedDevice& device, DecisionRule& rule, Rng& coin, const PairLabel& label, ReadingSink& sink,
    int64_t calls, int max_runs, const AfterPair& after_pair = {},
    const std::function<void(const Confirmation&)>& after_run = {});

}  // namespace headway::statistics
