// A session's input sets: how many, how many calls a reading may make, and their reuse.
#include "targets/cpu/session_inputs.h"

#include <gtest/gtest.h>

#include <memory>

#include "kernels/odd_regions_kernel_test_support.h"

namespace headway::cpu {
namespace {

TEST(SessionInputs, AWindowOfSetsIsReusedOnlyAfterTheColdTraffic) {
  for (int window : {2, 5, 9}) {
    const int sets = input_sets_for(16 << 20, 512ull << 20, window);
    EXPECT_EQ(sets % window, 0) << window;
    EXPECT_GE(static_cast<uint64_t>(sets - window) * (16 << 20), 512ull << 20) << window;
  }
  // With no cold traffic asked for (the gate flushes every timed set), one window.
  EXPECT_EQ(input_sets_for(16 << 20, 0, 9), 9);
  EXPECT_EQ(input_sets_for(16 << 20, 1, 9), 18);  // else this window and others for the traffic
}

TEST(SessionInputs, ShortKernelsMayMakeMoreCallsPerReading) {
  constexpr uint64_t kSmallSlot = 64 << 10;
  EXPECT_EQ(max_calls_per_reading(16 << 20, kSmallSlot), 32);  // attn_out's inputs
  EXPECT_EQ(max_calls_per_reading(100 << 20, kSmallSlot), 5);  // ffn's
  EXPECT_EQ(max_calls_per_reading(257 << 20, kSmallSlot), 2);  // attention's at 32,768 tokens
  EXPECT_EQ(max_calls_per_reading(512 << 20, kSmallSlot), 2);  // as large as the window: two
  EXPECT_EQ(max_calls_per_reading(513 << 20, kSmallSlot), 1);  // a larger one: one at least
  EXPECT_EQ(max_calls_per_reading(2 << 20, kSmallSlot), 256);  // a kernel of 2 MiB: the window's
  EXPECT_EQ(max_calls_per_reading(1 << 20, kSmallSlot), 256);  // of 1 MiB: the cap
}

// Every slot byte is reset, flushed and compared with each call: a reading's slots span 64 MiB
// at most, so qkv (8 MiB of cache rows and its q a slot) makes 7 calls, not the 16 its sets allow.
TEST(SessionInputs, LargeWritableSlotsBoundTheCallsOfAReading) {
  const KernelContract& qkv = *builtin_kernel("qkv");
  const uint64_t slot = InputSets::slot_bytes_of(qkv);
  EXPECT_GE(slot, 8u << 20) << "qkv's slot holds its K and V caches";
  EXPECT_EQ(max_calls_per_reading(InputSets::input_block_bytes(qkv), slot), 7);
  EXPECT_EQ(max_calls_per_reading(32 << 20, 4 << 20), 16) << "slots of 4 MiB: the sets bound it";
  EXPECT_EQ(max_calls_per_reading(1 << 20, 64 << 20), 2) << "one slot of the window's bytes: two";
  EXPECT_EQ(max_calls_per_reading(1 << 20, 65 << 20), 1);
  EXPECT_EQ(InputSets::slot_bytes_of(*builtin_kernel("attn_out")),
            InputSets(*builtin_kernel("attn_out"), 1, 2).slot_bytes());
}

// A reading makes enough calls to fill 16 ms, within what its sets' window allows: ffn at 8.3 ms
// a call makes two (one, and the warm-up call would be as long as the timed time).
TEST(SessionInputs, AReadingMakesTheFewestCallsThatFillItsTimeWithinTheWindow) {
  constexpr uint64_t kSlot = 64 << 10;
  EXPECT_EQ(calls_per_reading_for(0.016, 0.0083, 100 << 20, kSlot), 2);
  EXPECT_EQ(calls_per_reading_for(0.016, 0.003, 100 << 20, kSlot), 5);   // the window's 5, not 6
  EXPECT_EQ(calls_per_reading_for(0.016, 0.016, 100 << 20, kSlot), 1);   // exactly filled by one
  EXPECT_EQ(calls_per_reading_for(0.016, 0.0161, 100 << 20, kSlot), 1);  // longer than the time
  EXPECT_EQ(calls_per_reading_for(0.016, 0.060, 16 << 20, kSlot), 1);
  EXPECT_EQ(calls_per_reading_for(0.016, 0.0007, 32 << 20, 8 << 20), 8);  // 8 MiB slots: 8
  EXPECT_EQ(calls_per_reading_for(0.016, 0.0015, 16 << 20, kSlot), 11);   // ceil(10.7)
  EXPECT_EQ(calls_per_reading_for(0.016, 5e-6, 24 << 10, kSlot), 256);    // the cap
  EXPECT_EQ(calls_per_reading_for(0.016, 0.0, 16 << 20, kSlot), 1);       // no probe time: one
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

TEST(SessionInputs, ASessionReusesTheWritableBlocksOfAnEarlierOneThatEnded) {
  const KernelContract& kernel = *builtin_kernel("attn_out");
  auto inputs = shared_input_sets(kernel, 1, 4);
  auto a = shared_writable_block(*inputs, 3);
  auto b = shared_writable_block(*inputs, 3);
  ASSERT_NE(a, nullptr);
  EXPECT_NE(a.get(), b.get()) << "two arms held at once share a block";
  EXPECT_GE(a->size(), 3 * inputs->slot_bytes());
  const SharedMemory* first = a.get();
  const SharedMemory* second = b.get();
  a.reset();
  // The block no session holds is handed out again, the held one is not.
  EXPECT_EQ(shared_writable_block(*inputs, 3).get(), first);
  auto held = shared_writable_block(*inputs, 3);
  EXPECT_EQ(held.get(), first);
  EXPECT_NE(held.get(), second);
  // Another number of slots is another block.
  auto longer = shared_writable_block(*inputs, 5);
  EXPECT_NE(longer.get(), first);
  EXPECT_NE(longer.get(), second);
  EXPECT_GE(longer->size(), 5 * inputs->slot_bytes());
}

// Kept sets outlive the contract they were drawn for (a spec kernel's is made and dropped with
// its catalog): a later contract of the same name and regions gets them, and its blocks are laid
// out from what the sets copied, not from the contract that is gone.
TEST(SessionInputs, KeptSetsOutliveTheContractTheyWereDrawnFor) {
  auto drawn_for = std::make_unique<OddRegionsKernel>();
  const InputSets* kept = shared_input_sets(*drawn_for, 1, 3).get();
  drawn_for.reset();
  const OddRegionsKernel again;
  const auto inputs = shared_input_sets(again, 2, 3);
  EXPECT_EQ(inputs.get(), kept);
  EXPECT_EQ(inputs->kernel_name(), "odd_regions");
  EXPECT_EQ(inputs->regions().size(), 5u);
  const auto block = shared_writable_block(*inputs, 2);
  ASSERT_NE(block, nullptr);
  EXPECT_GE(block->size(), 2 * inputs->slot_bytes());
}

}  // namespace
}  // namespace headway::cpu
