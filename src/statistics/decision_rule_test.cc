#include "statistics/decision_rule.h"

#include <gtest/gtest.h>

#include <vector>

#include "statistics/betting_rule.h"
#include "statistics/sim_device.h"

namespace headway::statistics {
namespace {

// Decides after a fixed number of pairs, or never.
class CountingRule final : public DecisionRule {
 public:
  CountingRule(int decide_at, int max) : decide_at_(decide_at), max_(max) {}
  Arm first_arm(int pair_index, Rng&) override {
    return pair_index % 3 == 0 ? Arm::kCandidate : Arm::kHead;
  }
  std::optional<Outcome> observe(double) override {
    ++seen_;
    if (seen_ == decide_at_) return Outcome::kSame;
    return std::nullopt;
  }
  int max_pairs() const override { return max_; }

 private:
  int decide_at_;
  int max_;
  int seen_ = 0;
};

TEST(RunDecision, StopsWhenTheRuleDecides) {
  SimDevice device(SimConfig{});
  CountingRule rule(4, 10);
  Rng coin(1);
  MemorySink sink;
  const DecisionRecord r = run_decision(device, rule, coin, {"k", "n", 9, 0}, sink);
  EXPECT_EQ(r.outcome, Outcome::kSame);
  EXPECT_EQ(r.d.size(), 4u);
  ASSERT_EQ(sink.readings().size(), 8u);
  EXPECT_EQ(sink.readings()[0].arm, Arm::kCandidate);  // pair 0: rule puts candidate first
  EXPECT_EQ(sink.readings()[2].arm, Arm::kHead);       // pair 1: head first
  EXPECT_EQ(sink.readings()[7].pair_index, 3);
  EXPECT_EQ(sink.readings()[7].test_id, 9);
}

TEST(RunDecision, InconclusiveWhenTheRuleNeverDecides) {
  SimDevice device(SimConfig{});
  CountingRule rule(100, 5);
  Rng coin(1);
  MemorySink sink;
  const DecisionRecord r = run_decision(device, rule, coin, {}, sink);
  EXPECT_EQ(r.outcome, Outcome::kInconclusive);
  EXPECT_EQ(r.d.size(), 5u);
}

DecisionRecord betting_decision(uint64_t seed, std::vector<Reading>* readings) {
  SimConfig c;
  c.noise = NoiseModel::kT3;
  c.effect_pct = 0.5;
  c.seed = mix_seed(seed, 1);
  SimDevice device(c);
  BettingConfig b;
  b.s0 = s0_for_cv(0.005);
  BettingRule rule(b);
  Rng coin(mix_seed(seed, 2));
  MemorySink sink;
  DecisionRecord r = run_decision(device, rule, coin, {"k", "n", 0, 0}, sink);
  *readings = sink.readings();
  return r;
}

TEST(RunDecision, FixedSeedReproducesTheDecisionExactly) {
  std::vector<Reading> first;
  std::vector<Reading> second;
  const DecisionRecord a = betting_decision(2024, &first);
  const DecisionRecord b = betting_decision(2024, &second);
  EXPECT_EQ(a.outcome, b.outcome);
  EXPECT_EQ(a.d, b.d);
  ASSERT_EQ(first.size(), 2 * a.d.size());
  EXPECT_EQ(first, second);  // same pairs, same order, same seconds, same clock stamps
  bool some_candidate_first = false;
  bool some_head_first = false;
  for (const Reading& r : first) {
    if (r.position == 0) (r.arm == Arm::kCandidate ? some_candidate_first : some_head_first) = true;
  }
  EXPECT_TRUE(some_candidate_first && some_head_first);
  std::vector<Reading> other;
  betting_decision(2025, &other);
  EXPECT_NE(first, other);
}

}  // namespace
}  // namespace headway::statistics
