#include "statistics/decision_rule.h"

namespace headway::statistics {

DecisionRule::~DecisionRule() = default;

DecisionRecord run_decision(PairedDevice& device, DecisionRule& rule, Rng& coin,
                            const PairLabel& label, ReadingSink& sink) {
  DecisionRecord record;
  PairLabel pair_label = label;
  const int max_pairs = rule.max_pairs();
  for (int i = 0; i < max_pairs; ++i) {
    pair_label.pair_index = i;
    const Arm first = rule.first_arm(i, coin);
    const PairResult pair = run_pair_ordered(device, first, pair_label, sink);
    record.d.push_back(pair.d);
    if (const auto outcome = rule.observe(pair.d)) {
      record.outcome = *outcome;
      return record;
    }
  }
  record.outcome = Outcome::kInconclusive;
  return record;
}

}  // namespace headway::statistics
