#include "peers/paired_verdict.h"

#include <gtest/gtest.h>

#include <stdexcept>

#include "common/rng.h"

namespace headway::peers {
namespace {

// Readings of an arm that streams `bytes` at `gbps` times each round's spell, with noise of
// its own of about `noise` (a share).
std::vector<double> stream(uint64_t bytes, double gbps, const std::vector<double>& spells,
                           double noise, Rng& rng) {
  std::vector<double> s;
  for (const double spell : spells)
    s.push_back(static_cast<double>(bytes) / (gbps * spell * 1e9) *
                (1.0 + noise * (rng.uniform() - 0.5)));
  return s;
}

// Rounds whose bandwidth swings by 2x between spells, as the EPYC's did.
std::vector<double> swinging_spells(int rounds, Rng& rng) {
  std::vector<double> s;
  for (int r = 0; r < rounds; ++r) s.push_back(rng.uniform() < 0.5 ? 1.0 : 2.0);
  return s;
}

TEST(PairedVerdict, AHeadAheadInEveryRoundIsCloserThoughTheSpellsSwingBothByTwice) {
  Rng rng(3);
  const auto spells = swinging_spells(15, rng);
  const PairedArm head{"head", 100'000'000, stream(100'000'000, 36.0, spells, 0.02, rng)};
  const PairedArm sgemv{"sgemv", 700'000'000, stream(700'000'000, 33.0, spells, 0.02, rng)};
  const PeersJudgement j = judge_against_peers(head, {sgemv});
  EXPECT_EQ(j.verdict, PeersVerdict::kHeadCloser);
  EXPECT_NEAR(j.hardest.median, 33.0 / 36.0, 0.02);
  EXPECT_LT(j.hardest.interval.high, 1.0);
  EXPECT_EQ(verdict_text(j), "the head is closer to its floor than every peer");
}

TEST(PairedVerdict, TheSameRatesAreLevelAndASlowerHeadLosesToThePeerThatBeatsIt) {
  Rng rng(5);
  const auto spells = swinging_spells(15, rng);
  const PairedArm head{"head", 100'000'000, stream(100'000'000, 33.0, spells, 0.10, rng)};
  const PairedArm onednn{"onednn", 700'000'000, stream(700'000'000, 25.0, spells, 0.02, rng)};
  const PairedArm sgemv{"sgemv", 700'000'000, stream(700'000'000, 33.0, spells, 0.10, rng)};
  const PeersJudgement level = judge_against_peers(head, {onednn, sgemv});
  EXPECT_EQ(level.verdict, PeersVerdict::kLevel);
  EXPECT_EQ(level.hardest.peer, "sgemv");
  EXPECT_EQ(level.each.size(), 2u);
  EXPECT_LT(level.each[0].interval.high, 1.0) << "ahead of oneDNN all the same";
  EXPECT_EQ(verdict_text(level), "level with sgemv within the rounds' noise");

  const PairedArm slow{"head", 100'000'000, stream(100'000'000, 27.0, spells, 0.02, rng)};
  const PeersJudgement lost = judge_against_peers(slow, {onednn, sgemv});
  EXPECT_EQ(lost.verdict, PeersVerdict::kPeerCloser);
  EXPECT_EQ(lost.hardest.peer, "sgemv");
  EXPECT_GT(lost.hardest.interval.low, 1.0);
  EXPECT_EQ(verdict_text(lost), "sgemv is closer to its floor than the head");
}

// 31 rounds of a head reading 1 s a round, and a peer of the same bytes against which the head's
// ratio is `in_12` in 12 rounds (r % 5 < 2) and `in_19` in the other 19.
PairedArm head_of_31() { return {"head", 1000, std::vector<double>(31, 1.0)}; }

PairedArm peer_at(const std::string& name, double in_12, double in_19) {
  PairedArm p{name, 1000, {}};
  for (int r = 0; r < 31; ++r) p.seconds.push_back(1.0 / (r % 5 < 2 ? in_12 : in_19));
  return p;
}

TEST(PairedVerdict, APeerCloserIsNamedThoughANoisierOneHasTheLargerMedian) {
  // 1.25 in every round against "steady"; against "erratic" a larger median, 1.4, whose
  // interval reaches below 1.
  const PeersJudgement j = judge_against_peers(
      head_of_31(), {peer_at("erratic", 0.5, 1.4), peer_at("steady", 1.25, 1.25)});
  ASSERT_EQ(j.verdict, PeersVerdict::kPeerCloser);
  EXPECT_NEAR(j.each[0].median, 1.4, 1e-9);
  EXPECT_LE(j.each[0].interval.low, 1.0);
  EXPECT_EQ(j.hardest.peer, "steady");
  EXPECT_NEAR(j.hardest.median, 1.25, 1e-9);
  EXPECT_EQ(verdict_text(j), "steady is closer to its floor than the head");
}

TEST(PairedVerdict, LevelNamesAPeerTheRoundsDoNotSeparateThoughAnotherHasTheLargerMedian) {
  // 0.8 in every round against "steady": the head is ahead. Against "erratic" a smaller median,
  // 0.6, whose interval reaches 1.
  const PeersJudgement j = judge_against_peers(
      head_of_31(), {peer_at("steady", 0.8, 0.8), peer_at("erratic", 1.5, 0.6)});
  ASSERT_EQ(j.verdict, PeersVerdict::kLevel);
  EXPECT_NEAR(j.each[0].median, 0.8, 1e-9);
  EXPECT_NEAR(j.each[1].median, 0.6, 1e-9);
  EXPECT_GE(j.each[1].interval.high, 1.0);
  EXPECT_EQ(j.hardest.peer, "erratic");
  EXPECT_EQ(verdict_text(j), "level with erratic within the rounds' noise");
}

TEST(PairedVerdict, EachIntervalIsWiderWithMorePeersSoThatAllHoldTogether) {
  Rng rng(7);
  const auto spells = swinging_spells(15, rng);
  const PairedArm head{"head", 1000, stream(1000, 30.0, spells, 0.2, rng)};
  const PairedArm peer{"peer", 1000, stream(1000, 30.0, spells, 0.2, rng)};
  const PeersJudgement one = judge_against_peers(head, {peer});
  const PeersJudgement three = judge_against_peers(head, {peer, peer, peer});
  EXPECT_NEAR(one.each[0].interval.coverage, 0.965, 0.02);
  EXPECT_GE(three.each[0].interval.coverage, 1.0 - 0.05 / 3);
  EXPECT_LE(three.each[0].interval.low, one.each[0].interval.low);
  EXPECT_GE(three.each[0].interval.high, one.each[0].interval.high);
}

TEST(PairedVerdict, BadInputIsRefusedWithItsReason) {
  const PairedArm head{"head", 10, {1.0, 1.0}};
  EXPECT_THROW(judge_against_peers(head, {}), std::invalid_argument);
  EXPECT_THROW(judge_against_peers(head, {{"short", 10, {1.0}}}), std::invalid_argument);
  EXPECT_THROW(judge_against_peers(head, {{"empty", 0, {1.0, 1.0}}}), std::invalid_argument);
  EXPECT_THROW(judge_against_peers({"head", 0, {1.0}}, {{"p", 10, {1.0}}}), std::invalid_argument);
  try {
    judge_against_peers(head, {{"short", 10, {1.0}}});
  } catch (const std::invalid_argument& e) {
    EXPECT_STREQ(e.what(), "short has 1 readings where the head has 2");
  }
}

}  // namespace
}  // namespace headway::peers
