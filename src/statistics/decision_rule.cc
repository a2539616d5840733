#include "statistics/decision_rule.h"

#include <algorithm>
#include <deque>

namespace headway::statistics {

DecisionRule::~DecisionRule() = default;

DecisionRecord run_decision(PairedDevice& device, DecisionRule& rule, Rng& coin,
                            const PairLabel& label, ReadingSink& sink,
                            const AfterPair& after_pair) {
  DecisionRecord record;
  PairLabel pair_label = label;
  const int max_pairs = rule.max_pairs();
  std::deque<Arm> planned;
  for (int i = 0; i < max_pairs; ++i) {
    pair_label.pair_index = i;
    if (planned.empty()) {
      const int ahead = std::clamp(device.pairs_at_once(), 1, max_pairs - i);
      for (int j = 0; j < ahead; ++j) planned.push_back(rule.first_arm(i + j, coin));
      if (ahead > 1) device.prepare_pairs({planned.begin(), planned.end()});
    }
    const Arm first = planned.front();
    planned.pop_front();
    const PairResult pair = run_pair_ordered(device, first, pair_label, sink);
    record.d.push_back(pair.d);
    const auto outcome = rule.observe(pair.d);
    if (after_pair) after_pair(i + 1, rule);
    if (outcome) {
      record.outcome = *outcome;
      return record;
    }
  }
  record.outcome = Outcome::kInconclusive;
  return record;
}

}  // namespace headway::statistics
