#include "loop/run_tally.h"

#include <gtest/gtest.h>

namespace headway::loop {
namespace {

TEST(RunTally, RoundsAddWhatTheyDecided) {
  RunTally tally;
  tally.round_started("qkv");
  tally.round_started("qkv");
  EXPECT_EQ(tally.rounds_started("qkv"), 2);
  EXPECT_EQ(tally.rounds_started("ffn"), 0);
  tally.round_ended("qkv", RoundCounts{3, 1, 1, 2});
  tally.round_ended("qkv", RoundCounts{1, 0, 0, 0});
  tally.proposed(5);
  const OptimizeSummary& s = tally.summary();
  EXPECT_EQ(s.rounds, 2);
  EXPECT_EQ(s.tests, 4);
  EXPECT_EQ(s.accepted, 1);
  EXPECT_EQ(s.cheated, 1);
  EXPECT_EQ(s.cost_rejected, 2);
  EXPECT_EQ(s.proposed, 5);
  EXPECT_EQ(tally.standing("qkv").rounds_started, 2);
  EXPECT_FALSE(tally.standing("qkv").nothing_left);
}

TEST(RunTally, AKernelWithNothingLeftWaitsForSomethingNew) {
  RunTally tally;
  tally.round_ended("qkv", std::nullopt);
  tally.round_ended("ffn", std::nullopt);
  EXPECT_EQ(tally.summary().rounds, 2);
  EXPECT_TRUE(tally.standing("qkv").nothing_left);
  tally.something_new("qkv");
  EXPECT_FALSE(tally.standing("qkv").nothing_left);
  EXPECT_TRUE(tally.standing("ffn").nothing_left);
  tally.something_new_for_all();
  EXPECT_FALSE(tally.standing("ffn").nothing_left);
}

TEST(RunTally, StoppedKernelsAndTheFirstDeviceStopAreKept) {
  RunTally tally;
  tally.kernel_stopped("qkv", "its baseline does not build", false);  // at registration
  tally.kernel_stopped("ffn", "its baseline is wrong under timing", true);
  EXPECT_EQ(tally.summary().rounds, 1);
  EXPECT_TRUE(tally.standing("qkv").stopped);
  EXPECT_EQ(tally.summary().kernels_stopped.at("ffn"), "its baseline is wrong under timing");

  EXPECT_TRUE(tally.device_stopped("budget of jobs spent"));
  EXPECT_FALSE(tally.device_stopped("budget of jobs spent, seen again"));
  EXPECT_EQ(tally.summary().device_stopped, "budget of jobs spent");
}

}  // namespace
}  // namespace headway::loop
