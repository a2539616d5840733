#include "loop/schedule.h"

#include <gtest/gtest.h>

namespace headway::loop {
namespace {

KernelStanding kernel(const std::string& name, double head_ms, double floor_ms, int rounds = 0) {
  KernelStanding k;
  k.name = name;
  k.head_ms = head_ms;
  k.floor_ms = floor_ms;
  k.rounds_started = rounds;
  return k;
}

TEST(Schedule, TheKernelWithTheMostMillisecondsAboveItsFloorGoesNext) {
  // qkv is the furthest from its floor as a ratio (4x), ffn in milliseconds (3 ms).
  const std::vector<KernelStanding> kernels{kernel("qkv", 0.4, 0.1), kernel("ffn", 5.0, 2.0),
                                            kernel("attn_out", 1.0, 0.5)};
  const NextKernel next = next_kernel(kernels, {});
  ASSERT_TRUE(next.index);
  EXPECT_EQ(kernels[*next.index].name, "ffn");
  EXPECT_TRUE(next.near_floor.empty());
}

TEST(Schedule, EqualSavingsGoToTheFirstInTheRunsOrder) {
  const std::vector<KernelStanding> kernels{kernel("a", 2.0, 1.0), kernel("b", 3.0, 2.0)};
  EXPECT_EQ(next_kernel(kernels, {}).index, 0u);
}

TEST(Schedule, KernelsWithinDoneWithinFloorAreLeftAloneAndListed) {
  const std::vector<KernelStanding> kernels{kernel("a", 1.05, 1.0), kernel("b", 1.5, 1.0),
                                            kernel("c", 1.1, 1.0)};
  const NextKernel next = next_kernel(kernels, {true, 1.1});
  EXPECT_EQ(next.index, 1u);
  EXPECT_EQ(next.near_floor, (std::vector<std::string>{"a", "c"}));

  const std::vector<KernelStanding> all_near{kernel("a", 1.05, 1.0)};
  const NextKernel none = next_kernel(all_near, {true, 1.1});
  EXPECT_FALSE(none.index);
  EXPECT_EQ(none.near_floor, (std::vector<std::string>{"a"}));
}

TEST(Schedule, StoppedExhaustedAndInFlightKernelsGetNoRoundAndAreNotListedNearTheFloor) {
  std::vector<KernelStanding> kernels{kernel("stopped", 9.0, 1.0), kernel("done", 8.0, 1.0),
                                      kernel("busy", 7.0, 1.0), kernel("near", 1.0, 1.0),
                                      kernel("open", 2.0, 1.0)};
  kernels[0].stopped = true;
  kernels[1].nothing_left = true;
  kernels[2].in_flight = true;
  const NextKernel next = next_kernel(kernels, {});
  EXPECT_EQ(next.index, 4u);
  EXPECT_EQ(next.near_floor, (std::vector<std::string>{"near"}));

  kernels[4].in_flight = true;
  EXPECT_FALSE(next_kernel(kernels, {}).index);
}

TEST(Schedule, WithoutFloorGuidanceTheKernelWithFewestRoundsGoesNextAndNoneIsNearItsFloor) {
  std::vector<KernelStanding> kernels{kernel("a", 9.0, 1.0, 3), kernel("b", 1.0, 1.0, 2),
                                      kernel("c", 5.0, 1.0, 2)};
  const NextKernel next = next_kernel(kernels, {false, 1.1});
  EXPECT_EQ(next.index, 1u);  // b: at its floor, but the first of the fewest rounds
  EXPECT_TRUE(next.near_floor.empty());

  kernels[1].nothing_left = true;
  EXPECT_EQ(next_kernel(kernels, {false, 1.1}).index, 2u);
}

TEST(Schedule, NoKernelsNoRound) {
  const NextKernel next = next_kernel({}, {});
  EXPECT_FALSE(next.index);
  EXPECT_TRUE(next.near_floor.empty());
}

}  // namespace
}  // namespace headway::loop
