// The cpu target's microbenchmarks as stored chip facts, in a real workspace database.
#include "targets/cpu/cpu_chip_facts.h"

#include <gtest/gtest.h>

#include "common/cache_flush.h"
#include "knowledge/facts.h"
#include "store/test_temp_dir.h"
#include "targets/cpu/cpu_target.h"
#include "targets/fact_names.h"

namespace headway::cpu {
namespace {

using knowledge::find_fact;
using namespace headway::targets;

TEST(CpuChipFacts, MicrobenchmarksBecomeStoredFacts) {
  store::TestTempDir dir;
  auto ws = store::Workspace::create(dir.path()).value();
  CpuTarget cpu;
  const auto facts = knowledge::measure_and_store_facts(ws, cpu, "tc", {1, 3, 2, {}});
  auto value = [&](const std::string& name) {
    const auto f = find_fact(ws, name, "tc");
    EXPECT_TRUE(f) << name;
    return f ? f->value : -1.0;
  };
  EXPECT_GT(value(kReadBandwidth), 0.1);
  EXPECT_DOUBLE_EQ(value(read_bandwidth_at(1)), value(kReadBandwidth));  // one thread measured
  EXPECT_FALSE(find_fact(ws, read_bandwidth_at(2), "tc"));
  EXPECT_GT(value(kDecodeF8), 0.1);
  EXPECT_GT(value(kDecodeNvfp4), 0.1);
  EXPECT_GT(value(kTimerOverhead), 0.0);
  EXPECT_LT(value(kTimerOverhead), 100000.0);
  EXPECT_GE(value(kNoiseFloor), 0.0);
  EXPECT_LT(value(kNoiseFloor), 100.0);
  EXPECT_EQ(find_fact(ws, kTimerOverhead, "tc")->unit, "ns");
  EXPECT_NE(find_fact(ws, kNoiseFloor, "tc")->method.find("2 repeated"), std::string::npos);
  // The sweep's steps: at least L1 on any real host, with ordered sizes and latencies.
  EXPECT_GT(value(kCacheL1d), 0.0);
  EXPECT_EQ(find_fact(ws, kCacheL1d, "tc")->unit, "KiB");
  EXPECT_NE(find_fact(ws, kCacheL1d, "tc")->method.find("OS reports"), std::string::npos);
  EXPECT_GT(value(kLatencyL1d), 0.0);
  EXPECT_GT(value(kLatencyDram), value(kLatencyL1d));
  size_t levels = 0;
  for (const auto& f : facts) levels += f.name.rfind("cache.", 0) == 0;
  for (int level = 2; level <= static_cast<int>(levels); ++level) {
    EXPECT_GT(value(cache_size_name(level)), value(cache_size_name(level - 1)));
    EXPECT_TRUE(find_fact(ws, cache_latency_name(level), "tc")) << level;
  }
  EXPECT_EQ(cache_size_name(2), kCacheL2);
  EXPECT_EQ(cache_latency_name(3), kLatencyL3);
  EXPECT_GT(value(kFmaThroughput), 0.0);
  EXPECT_DOUBLE_EQ(value(fma_throughput_at(1)), value(kFmaThroughput));  // one thread measured
  EXPECT_FALSE(find_fact(ws, fma_throughput_at(2), "tc"));
  EXPECT_EQ(find_fact(ws, kFmaThroughput, "tc")->unit, "GFLOP/s");
  const std::string fma_method = find_fact(ws, kFmaThroughput, "tc")->method;
  EXPECT_TRUE(fma_method.find("avx2+fma") != std::string::npos ||
              fma_method.find("scalar") != std::string::npos)
      << fma_method;
  EXPECT_GT(value(kFmaLatency), 0.0);
  // The cold inputs of timed calls, with their evidence.
  EXPECT_GT(value(kColdInputLatency), 0.0);
  EXPECT_NE(find_fact(ws, kColdInputLatency, "tc")->method.find("into a set just read"),
            std::string::npos);
  // One instruction-set fact per extension, each 0 or 1.
  size_t isa = 0;
  for (const auto& f : facts) {
    if (f.name.rfind(targets::kIsaPrefix, 0) != 0) continue;
    ++isa;
    EXPECT_TRUE(f.value == 0.0 || f.value == 1.0) << f.name;
  }
  EXPECT_GT(isa, 0u);  // one per extension (the cpu target's isa_facts_test counts them)
  EXPECT_EQ(find_fact(ws, targets::isa_fact_name("avx2"), "tc")->unit, "bool");
  // The guard's costs: a flush rate per instruction the CPU has, a process and a pause.
  EXPECT_GT(value(kGuardFlushClflush), 0.0);
  EXPECT_EQ(find_fact(ws, kGuardFlushClflushopt, "tc").has_value(),
            cpu_has(FlushInstruction::kClflushopt));
  EXPECT_GT(value(kGuardForkWait), 0.0);
  EXPECT_GT(value(kGuardStopResume), 0.0);
  EXPECT_EQ(find_fact(ws, kGuardForkWait, "tc")->unit, "ms");
  const size_t guard = 3 + cpu_has(FlushInstruction::kClflushopt);
  // An FMA on a subnormal multiplicand against one on normal inputs: a ratio, never below half.
  EXPECT_GT(value(kFmaSubnormalRatio), 0.5);
  EXPECT_EQ(find_fact(ws, kFmaSubnormalRatio, "tc")->unit, "x");
  // 6 bandwidth, decode, timer and noise facts; 2 per cache level and DRAM latency; cold
  // inputs; the guard's; 4 FMA facts; the instruction-set facts.
  EXPECT_EQ(facts.size(), 6u + 2 * levels + 1 + 1 + guard + 4 + isa);
}

}  // namespace
}  // namespace headway::cpu
