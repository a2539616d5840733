#include "statistics/decision_rule.h"

#include <gtest/gtest.h>

#include <vector>

#include "statistics/betting_rule.h"
#include "statistics/calibration.h"
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

// A SimDevice that says it runs four pairs at once and keeps what it was told.
class PreparingDevice final : public PairedDevice {
 public:
  explicit PreparingDevice(const SimConfig& config) : sim_(config) {}
  double run_once(Arm arm, nlohmann::json* clock_out) override {
    if (position_++ % 2 == 0) firsts_run.push_back(arm);
    return sim_.run_once(arm, clock_out);
  }
  int64_t now_ns() override { return sim_.now_ns(); }
  int pairs_at_once() const override { return 4; }
  void prepare_pairs(const std::vector<Arm>& firsts) override { prepared.push_back(firsts); }
  std::vector<std::vector<Arm>> prepared;
  std::vector<Arm> firsts_run;

 private:
  SimDevice sim_;
  int position_ = 0;
};

TEST(RunDecision, ADeviceThatRunsPairsAtOnceIsToldTheirOrdersAndTheDecisionIsUnchanged) {
  SimConfig config;
  config.seed = 77;
  config.effect_pct = 1.0;
  BettingConfig betting;
  betting.s0 = s0_for_cv(0.005);
  for (uint64_t seed : {1, 2, 3}) {
    SimDevice plain(config);
    PreparingDevice ahead(config);
    BettingRule rule_a(betting), rule_b(betting);
    Rng coin_a(seed), coin_b(seed);
    MemorySink sink_a, sink_b;
    const DecisionRecord a = run_decision(plain, rule_a, coin_a, {"k", "n", 1, 0}, sink_a);
    const DecisionRecord b = run_decision(ahead, rule_b, coin_b, {"k", "n", 1, 0}, sink_b);
    EXPECT_EQ(a.outcome, b.outcome);
    EXPECT_EQ(a.d, b.d);
    EXPECT_EQ(sink_a.readings(), sink_b.readings());
    ASSERT_FALSE(ahead.prepared.empty());
    std::vector<Arm> announced;
    for (const auto& batch : ahead.prepared) {
      EXPECT_EQ(batch.size(), 4u);
      announced.insert(announced.end(), batch.begin(), batch.end());
    }
    ASSERT_GE(announced.size(), ahead.firsts_run.size());
    EXPECT_LT(announced.size() - ahead.firsts_run.size(), 4u) << "at most a batch past the end";
    announced.resize(ahead.firsts_run.size());
    EXPECT_EQ(announced, ahead.firsts_run) << "each pair ran in the order announced";
  }
}

TEST(EstimateS0, ADeviceThatRunsPairsAtOnceIsToldTheWholeWarmUp) {
  SimConfig config;
  config.seed = 5;
  PreparingDevice ahead(config);
  SimDevice plain(config);
  const auto a = estimate_s0(plain, 16);
  const auto b = estimate_s0(ahead, 16);
  ASSERT_TRUE(a.ok() && b.ok());
  EXPECT_EQ(a.value(), b.value()) << "the same readings";
  ASSERT_EQ(ahead.prepared.size(), 1u);
  EXPECT_EQ(ahead.prepared[0], std::vector<Arm>(16, Arm::kHead));
}

}  // namespace
}  // namespace headway::statistics
