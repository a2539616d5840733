// The guard's chip facts: each measured, and the cheapest flush is the one the gate uses.
#include "targets/cpu/guard_facts.h"

#include <gtest/gtest.h>

#include "common/cache_flush.h"

namespace headway::cpu {
namespace {

TEST(GuardFacts, MeasuresEveryFlushTheCpuHasAProcessAndAPause) {
  const GuardFacts facts = measure_guard_facts(3);
  EXPECT_GT(facts.clflush_gbps, 0.0);
  EXPECT_EQ(facts.clflushopt_gbps > 0.0, cpu_has(FlushInstruction::kClflushopt));
  EXPECT_EQ(facts.flush_used, to_string(best_flush_instruction()));
  EXPECT_EQ(facts.flush_bytes, 64ull << 20);
  // A fork and a stop take microseconds to milliseconds; not a second, not nothing.
  EXPECT_GT(facts.fork_wait_ms, 0.0);
  EXPECT_LT(facts.fork_wait_ms, 1000.0);
  EXPECT_GT(facts.stop_resume_ms, 0.0);
  EXPECT_LT(facts.stop_resume_ms, 1000.0);
  EXPECT_NE(facts.method.find("medians of 3 readings"), std::string::npos) << facts.method;
}

}  // namespace
}  // namespace headway::cpu
