// The confirmation before a FASTER decision stands: how many calls it needs, when it runs pairs,
// and, over 1000 simulated acceptance tests of a candidate wrong on 1% of its calls, that it
// catches all but the share it is built to let through.
#include "statistics/confirmation.h"

#include <gtest/gtest.h>

#include <cmath>
#include <stdexcept>
#include <vector>

#include "statistics/betting_rule.h"
#include "statistics/decision_rule.h"

namespace headway::statistics {
namespace {

TEST(Confirmation, CallsToCatchIsTheSmallestCountWhoseEscapeIsWithinTheBound) {
  EXPECT_EQ(calls_to_catch(kWrongShare, kWrongEscape), 688);
  for (const auto& [p, escape] : {std::pair{0.01, 0.001}, {0.05, 0.001}, {0.35, 0.01}}) {
    const int64_t n = calls_to_catch(p, escape);
    EXPECT_LE(std::pow(1 - p, static_cast<double>(n)), escape) << p;
    EXPECT_GT(std::pow(1 - p, static_cast<double>(n - 1)), escape) << p;
  }
  EXPECT_THROW(calls_to_catch(0.0, 0.001), std::invalid_argument);
  EXPECT_THROW(calls_to_catch(0.01, 1.0), std::invalid_argument);
  EXPECT_THROW(calls_to_catch(std::nan(""), 0.001), std::invalid_argument);
}

// A candidate on a device whose readings are `calls` timed calls each; a call is wrong with
// probability `wrong_share`, and a wrong call skips its work (a tenth of the time). The two
// readings of a pair run on the same inputs and every call is compared, so a pair that holds a
// wrong candidate call disqualifies the candidate; readings outside pairs (a warm-up) are not
// compared. Besides its wrong calls the candidate is truly `gain` faster. Counting can be off.
// With `alone`, the device also runs readings of the candidate alone whose every call it checks.
class WrongOnSomeCalls final : public PairedDevice {
 public:
  WrongOnSomeCalls(uint64_t seed, double wrong_share, double gain, int calls, bool counts = true,
                   bool alone = false)
      : rng_(seed),
        wrong_share_(wrong_share),
        gain_(gain),
        calls_(calls),
        counts_(counts),
        alone_(alone) {}
  bool run_confirming_reading() override {
    if (!alone_) return false;
    ++alone_readings_;
    bool wrong = false;
    for (int k = 0; k < calls_; ++k) wrong |= rng_.uniform() < wrong_share_;
    if (wrong) throw ArmDisqualified(Arm::kCandidate, "a confirming call is wrong");
    verified_ += calls_;
    return true;
  }
  int alone_readings() const { return alone_readings_; }
  void begin_pair() override { in_pair_ = 0; }
  double run_once(Arm arm, nlohmann::json*) override {
    const bool paired = in_pair_ < 2;
    ++in_pair_;
    double total = 0.0;
    bool wrong = false;
    for (int k = 0; k < calls_; ++k) {
      const bool this_wrong = arm == Arm::kCandidate && rng_.uniform() < wrong_share_;
      wrong |= this_wrong;
      total += (arm == Arm::kCandidate ? 1.0 - gain_ : 1.0) * (this_wrong ? 0.1 : 1.0);
    }
    if (paired) {
      wrong_in_pair_ |= wrong;
      if (in_pair_ == 2) {
        verified_ += calls_;
        if (wrong_in_pair_) throw ArmDisqualified(Arm::kCandidate, "a timed call is wrong");
        wrong_in_pair_ = false;
      }
    }
    return 1e-3 * total / calls_ * std::exp(0.01 * rng_.normal());
  }
  int64_t verified_calls(Arm) const override { return counts_ ? verified_ : -1; }
  int64_t pairs() const { return verified_ / calls_ - alone_readings_; }

 private:
  Rng rng_;
  double wrong_share_, gain_;
  int calls_;
  bool counts_;
  bool alone_;
  int alone_readings_ = 0;
  int in_pair_ = 2;
  bool wrong_in_pair_ = false;
  int64_t verified_ = 0;
};

TEST(Confirmation, RunsPairsUntilTheCandidatesVerifiedCallsReachTheCount) {
  WrongOnSomeCalls honest(1, 0.0, 0.0, 8);
  Rng coin(2);
  const Confirmation c = confirm_candidate(honest, coin, 100, 1000);
  EXPECT_EQ(c.pairs, 13);  // 8 calls a pair: 96 after 12, 104 after 13
  EXPECT_EQ(c.verified_calls, 104);
  EXPECT_EQ(confirm_candidate(honest, coin, 100, 1000).pairs, 0);  // it has them already

  WrongOnSomeCalls uncounted(1, 0.0, 0.0, 8, false);
  const Confirmation none = confirm_candidate(uncounted, coin, 100, 1000);
  EXPECT_EQ(none.pairs, 0);
  EXPECT_EQ(none.verified_calls, -1);

  WrongOnSomeCalls capped(1, 0.0, 0.0, 1);
  EXPECT_EQ(confirm_candidate(capped, coin, 100, 7).pairs, 7);

  WrongOnSomeCalls cheat(3, 0.5, 0.0, 8);
  EXPECT_THROW(confirm_candidate(cheat, coin, 100, 1000), ArmDisqualified);
}

TEST(Confirmation, RunsTheCandidateAloneWhereTheDeviceCan) {
  WrongOnSomeCalls honest(1, 0.0, 0.0, 8, true, /*alone=*/true);
  Rng coin(2);
  std::vector<int64_t> told;
  const Confirmation c = confirm_candidate(honest, coin, 100, 1000, [&](const Confirmation& now) {
    told.push_back(now.verified_calls);
  });
  EXPECT_EQ(c.readings, 13);
  EXPECT_EQ(c.pairs, 0) << "no head reading is needed to verify the candidate's calls";
  EXPECT_EQ(c.verified_calls, 104);
  ASSERT_EQ(told.size(), 14u) << "its start and each of its 13 readings";
  EXPECT_EQ(told.front(), 0);
  EXPECT_EQ(told[1], 8);
  EXPECT_EQ(told.back(), 104);
  EXPECT_EQ(c.describe(),
            "confirmed by 13 readings of the candidate alone (104 of the candidate's calls "
            "verified)");
  EXPECT_EQ(Confirmation{}.describe(), "");

  WrongOnSomeCalls cheat(3, 0.5, 0.0, 8, true, /*alone=*/true);
  EXPECT_THROW(confirm_candidate(cheat, coin, 100, 1000), ArmDisqualified);
}

TEST(Confirmation, OnlyAFasterDecisionIsConfirmedAndTheKeptReadingsAreVerifiedAfter) {
  BettingConfig config;
  config.s0 = 0.02;
  for (const double gain : {0.03, -0.03}) {
    WrongOnSomeCalls device(5, 0.0, gain, 8, true, /*alone=*/true);
    BettingRule rule(config);
    Rng coin(6);
    MemorySink sink;
    int told = 0;
    const ConfirmedDecision d = decide_and_confirm(device, rule, coin, {"k", "c", 0, 0}, sink, 100,
                                                   100, {}, [&](const Confirmation&) { ++told; });
    if (gain > 0) {
      ASSERT_EQ(d.record.outcome, Outcome::kFaster);
      EXPECT_GE(d.confirmation.verified_calls, 100);
      EXPECT_EQ(told, 1 + d.confirmation.readings);
      EXPECT_GT(d.confirmation.readings, 0);
    } else {
      EXPECT_EQ(d.record.outcome, Outcome::kSlower);
      EXPECT_EQ(d.confirmation.readings + d.confirmation.pairs, 0) << "nothing to confirm";
      EXPECT_EQ(told, 0);
    }
  }
}

struct ConfirmationTally {
  int faster = 0;    // decided FASTER
  int escaped = 0;   // of those, not disqualified by the end of the confirmation: heads
  int caught = 0;    // disqualified, in the decision or its confirmation
  double pairs = 0;  // mean pairs of a test, confirmation included
};

// 1000 acceptance tests (a fixed s0 of 0.02, cap 24) of a candidate wrong on `wrong_share` of
// its calls, `calls` a reading, and truly 3% faster besides, each confirmed up to
// `confirm_calls` in as many pairs at most.
ConfirmationTally simulate(double wrong_share, int64_t confirm_calls, int calls = 8,
                           bool alone = false) {
  ConfirmationTally t;
  for (uint64_t seed = 1; seed <= 1000; ++seed) {
    WrongOnSomeCalls device(seed, wrong_share, 0.03, calls, true, alone);
    BettingConfig config;
    config.s0 = 0.02;
    BettingRule rule(config);
    Rng coin(seed + 7919);
    MemorySink sink;
    try {
      const DecisionRecord r = run_decision(device, rule, coin, {"k", "c", 0, 0}, sink);
      if (r.outcome == Outcome::kFaster) {
        ++t.faster;
        confirm_candidate(device, coin, confirm_calls, static_cast<int>(confirm_calls));
        ++t.escaped;
      }
    } catch (const ArmDisqualified&) {
      ++t.caught;
    }
    t.pairs += static_cast<double>(device.pairs()) / 1000;
  }
  return t;
}

TEST(Confirmation, ACandidateWrongOnOnePercentOfCallsBecomesAHeadAtMostAsOftenAsBuiltFor) {
  const ConfirmationTally confirmed =
      simulate(kWrongShare, calls_to_catch(kWrongShare, kWrongEscape));
  const ConfirmationTally unconfirmed = simulate(kWrongShare, 0);
  // Without the confirmation a FASTER test of about 10 pairs holds some 80 compared calls, all
  // right with probability 0.99^80 = 45%: many wrong candidates become heads.
  EXPECT_GT(unconfirmed.escaped, 200) << unconfirmed.faster << " FASTER";
  // With it, each FASTER candidate shows a wrong call with probability at least 1 - 0.1%.
  EXPECT_GT(confirmed.faster, 300) << "too few FASTER decisions to say anything";
  EXPECT_LE(confirmed.escaped, 3) << confirmed.faster << " FASTER, " << confirmed.caught
                                  << " caught, " << confirmed.pairs << " pairs a test";
}

TEST(Confirmation, TheBoundHoldsAtOneCallAReading) {
  // ffn's readings make one call: its confirmation needs 688 pairs, which the pair bound allows.
  const int64_t calls = calls_to_catch(kWrongShare, kWrongEscape);
  const ConfirmationTally confirmed = simulate(kWrongShare, calls, 1);
  EXPECT_GT(confirmed.faster, 300) << "too few FASTER decisions to say anything";
  EXPECT_LE(confirmed.escaped, 3) << confirmed.faster << " FASTER, " << confirmed.pairs
                                  << " pairs a test";
  // Capped at 100 pairs, as it was, about 0.99^100 = 37% of them escape.
  EXPECT_GT(simulate(kWrongShare, 100, 1).escaped, 60);
}

TEST(Confirmation, TheBoundHoldsWithReadingsOfTheCandidateAlone) {
  const int64_t calls = calls_to_catch(kWrongShare, kWrongEscape);
  for (int per_reading : {1, 8}) {
    const ConfirmationTally confirmed = simulate(kWrongShare, calls, per_reading, true);
    EXPECT_GT(confirmed.faster, 300) << per_reading;
    EXPECT_LE(confirmed.escaped, 3) << per_reading << ": " << confirmed.faster << " FASTER";
  }
}

}  // namespace
}  // namespace headway::statistics
