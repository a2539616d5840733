#pragma once
// A sequential decision rule and the loop that drives it with pairs from a device.
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "common/rng.h"
#include "statistics/outcome.h"
#include "statistics/pair_runner.h"
#include "statistics/reading_sink.h"

namespace headway::statistics {

class DecisionRule {
 public:
  virtual ~DecisionRule();
  // Which arm runs first in pair `pair_index` (0-based). A randomized rule draws from `coin`
  // (once per pair); a fixed-order rule ignores it.
  virtual Arm first_arm(int pair_index, Rng& coin) = 0;
  // Feeds d of the next pair; nullopt while undecided. Guaranteed to return an outcome no later
  // than the max_pairs()-th call. Requires that no outcome has been returned yet (throws
  // std::logic_error otherwise).
  virtual std::optional<Outcome> observe(double d) = 0;
  virtual int max_pairs() const = 0;
  // Where the decision stands after the pairs observed so far, in a few words for a person
  // following it ("FASTER wealth 3.2 of 20, ..."); empty where the rule has nothing to say.
  virtual std::string state() const { return ""; }
};

// Called after each pair with the pairs so far and the rule that observed them.
using AfterPair = std::function<void(int pairs, const DecisionRule& rule)>;

struct DecisionRecord {
  Outcome outcome = Outcome::kInconclusive;
  std::vector<double> d;  // one per pair, in order
};

// Runs pairs on `device` (pair i labelled label.pair_index = i) until `rule` decides, recording
// every reading to `sink`. A pair is never re-run because of its result. Should the rule fail to
// decide by max_pairs() the record says INCONCLUSIVE. A device that runs k pairs at once
// (pairs_at_once) is told the orders of the next k pairs before the first of them; the rule
// still sees the pairs one at a time in their order, so it decides on the same readings as it
// would one pair at a time, and the pairs run past its decision are never looked at.
DecisionRecord run_decision(PairedDevice& device, DecisionRule& rule, Rng& coin,
                            const PairLabel& label, ReadingSink& sink,
                            const AfterPair& after_pair = {});

}  // namespace headway::statistics
