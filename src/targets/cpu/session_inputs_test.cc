// A session's input sets: how many, how many calls a reading may make, and their reuse.
#include "targets/cpu/session_inputs.h"

#include <gtest/gtest.h>

namespace headway::cpu {
namespace {

TEST(SessionInputs, AWindowOfSetsIsReusedOnlyAfterTheColdTraffic) {
  for (int window : {2, 5, 9}) {
    const int sets = input_sets_for(16 << 20, 512ull << 20, window);
    EXPECT_EQ(sets % window, 0) << window;
    EXPECT_GE(static_cast<uint64_t>(sets - window) * (16 << 20), 512ull << 20) << window;
  }
  EXPECT_EQ(input_sets_for(16 << 20, 0, 9), 18);  // never fewer than two windows
}

TEST(SessionInputs, ShortKernelsMayMakeMoreCallsPerReading) {
  EXPECT_EQ(max_calls_per_reading(16 << 20), 8);    // attn_out's inputs
  EXPECT_EQ(max_calls_per_reading(32 << 20), 4);    // qkv's
  EXPECT_EQ(max_calls_per_reading(100 << 20), 1);   // ffn's
  EXPECT_EQ(max_calls_per_reading(1 << 20), 128);   // a kernel of a MiB: the window's bytes
  EXPECT_EQ(max_calls_per_reading(24 << 10), 256);  // of kilobytes: the cap
}

TEST(SessionInputs, ASessionReusesTheInputsOfAnEarlierOneThatEnded) {
  const KernelContract& kernel = *builtin_kernel("attn_out");
  auto first = shared_input_sets(kernel, 1, 4);
  const InputSets* drawn = first.get();
  // While the first is held, another session gets its own.
  auto second = shared_input_sets(kernel, 2, 4);
  EXPECT_NE(second.get(), drawn);
  second.reset();
  first.reset();
  EXPECT_EQ(shared_input_sets(kernel, 3, 4).get(), drawn);
  // Another number of sets is another layout.
  EXPECT_NE(shared_input_sets(kernel, 1, 6).get(), drawn);
}

}  // namespace
}  // namespace headway::cpu
