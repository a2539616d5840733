// Flushing lines from the caches: every instruction the CPU has leaves the lines to be read from
// memory, and the one the gate uses is the cheapest the CPU offers.
#include "common/cache_flush.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <vector>

#include "targets/cpu/cold_inputs.h"

namespace headway {
namespace {

TEST(CacheFlush, TheGateUsesClflushoptWhereTheCpuHasIt) {
#if defined(__x86_64__)
  EXPECT_TRUE(cpu_has(FlushInstruction::kClflush));
  EXPECT_EQ(best_flush_instruction(), cpu_has(FlushInstruction::kClflushopt)
                                          ? FlushInstruction::kClflushopt
                                          : FlushInstruction::kClflush);
#else
  EXPECT_EQ(best_flush_instruction(), FlushInstruction::kNone);
#endif
  EXPECT_EQ(to_string(FlushInstruction::kClflushopt), "clflushopt");
  EXPECT_EQ(to_string(FlushInstruction::kClflush), "clflush");
}

TEST(CacheFlush, EveryInstructionTheCpuHasLeavesTheLinesToBeReadFromMemory) {
  constexpr size_t kWalk = 1 << 20;  // few pages: the walk times the caches, not the TLB
  std::vector<std::byte> buffer(kWalk, std::byte{1});
  for (const FlushInstruction instruction :
       {FlushInstruction::kClflush, FlushInstruction::kClflushopt}) {
    if (!cpu_has(instruction)) continue;
    volatile uint64_t sink = 0;
    auto warm_walk = [&] {
      for (size_t i = 0; i < kWalk; i += 64) sink = sink + static_cast<uint64_t>(buffer[i]);
      return cpu::dependent_load_ns(buffer.data(), kWalk, 7);
    };
    auto flushed_walk = [&] {
      flush_lines(buffer.data(), buffer.size(), instruction);
      return cpu::dependent_load_ns(buffer.data(), kWalk, 7);
    };
    double warm = warm_walk(), flushed = flushed_walk();
    for (int i = 0; i < 4; ++i) {  // best of five, against a busy machine
      warm = std::min(warm, warm_walk());
      flushed = std::min(flushed, flushed_walk());
    }
    EXPECT_GT(flushed, 2.0 * warm)
        << to_string(instruction) << ": flushed " << flushed << " ns, warm " << warm << " ns";
  }
}

}  // namespace
}  // namespace headway
