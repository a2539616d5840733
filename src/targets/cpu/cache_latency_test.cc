#include "targets/cpu/cache_latency.h"

#include <gtest/gtest.h>

#include <cmath>
#include <functional>

#include "common/cache_sizes.h"
#include "common/rng.h"

namespace headway::cpu {
namespace {

constexpr uint64_t KiB = 1024, MiB = 1024 * 1024;

// Sizes 4 KiB..128 MiB at two per octave, as the sweep measures them, with ns from `f`.
std::vector<LatencyPoint> curve_of(const std::function<double(uint64_t)>& f) {
  std::vector<LatencyPoint> c;
  for (uint64_t base = 4 * KiB; base <= 128 * MiB; base *= 2) {
    c.push_back({base, f(base)});
    if (base + base / 2 <= 128 * MiB) c.push_back({base + base / 2, f(base + base / 2)});
  }
  return c;
}

double three_steps(uint64_t bytes) {
  if (bytes <= 32 * KiB) return 1.0;
  if (bytes <= 512 * KiB) return 4.0;
  if (bytes <= 32 * MiB) return 15.0;
  return 100.0;
}

TEST(CacheLatencyInfer, ThreeStepsGiveThreeLevels) {
  const auto levels = infer_cache_levels(curve_of(three_steps));
  ASSERT_EQ(levels.size(), 3u);
  EXPECT_EQ(levels[0].bytes, 32 * KiB);
  EXPECT_EQ(levels[1].bytes, 512 * KiB);
  EXPECT_EQ(levels[2].bytes, 32 * MiB);
  EXPECT_DOUBLE_EQ(levels[0].ns, 1.0);
  EXPECT_DOUBLE_EQ(levels[1].ns, 4.0);
  EXPECT_DOUBLE_EQ(levels[2].ns, 15.0);
}

TEST(CacheLatencyInfer, AFlatCurveHasNoLevels) {
  EXPECT_TRUE(infer_cache_levels(curve_of([](uint64_t) { return 2.5; })).empty());
  EXPECT_TRUE(infer_cache_levels({}).empty());
  const LatencyPoint one{4 * KiB, 1.0};
  EXPECT_TRUE(infer_cache_levels({&one, 1}).empty());
}

TEST(CacheLatencyInfer, SmallWobblesMakeNoFalseLevels) {
  Rng rng(7);
  for (int trial = 0; trial < 50; ++trial) {
    // +-15% around a flat curve, and around the three steps.
    auto wobble = [&rng] { return 1.0 + rng.uniform(-0.15, 0.15); };
    EXPECT_TRUE(infer_cache_levels(curve_of([&](uint64_t) { return 3.0 * wobble(); })).empty());
    const auto levels =
        infer_cache_levels(curve_of([&](uint64_t b) { return three_steps(b) * wobble(); }));
    ASSERT_EQ(levels.size(), 3u);
    EXPECT_EQ(levels[0].bytes, 32 * KiB);
    EXPECT_EQ(levels[1].bytes, 512 * KiB);
    EXPECT_EQ(levels[2].bytes, 32 * MiB);
  }
}

TEST(CacheLatencyInfer, ALoneSpikeIsAnOutlierAndTransitionPointsAreNoLevel) {
  // A preempted run at 128 KiB: twice the plateau for one point only.
  auto spiked = curve_of([](uint64_t b) { return b == 128 * KiB ? 8.0 : three_steps(b); });
  auto levels = infer_cache_levels(spiked);
  ASSERT_EQ(levels.size(), 3u);
  EXPECT_EQ(levels[1].bytes, 512 * KiB);
  EXPECT_DOUBLE_EQ(levels[1].ns, 4.0);
  // A gradual step: one point half way between L1 and L2 belongs to neither.
  auto gradual = curve_of([](uint64_t b) { return b == 48 * KiB ? 2.0 : three_steps(b); });
  levels = infer_cache_levels(gradual);
  ASSERT_EQ(levels.size(), 3u);
  EXPECT_EQ(levels[0].bytes, 32 * KiB);
  EXPECT_EQ(levels[1].bytes, 512 * KiB);
  // Two points on the way from L3 to memory (as partial L3 hits give on a shared L3) are too short
  // for a plateau.
  auto ramp = curve_of([](uint64_t b) {
    return b == 48 * MiB ? 30.0 : b == 64 * MiB ? 36.0 : three_steps(b);
  });
  levels = infer_cache_levels(ramp);
  ASSERT_EQ(levels.size(), 3u);
  EXPECT_EQ(levels[2].bytes, 32 * MiB);
  EXPECT_DOUBLE_EQ(levels[2].ns, 15.0);
}

TEST(CacheLatencyOs, ReportedSizesAreOrdered) {
  const OsCacheSizes os = os_cache_sizes();
  EXPECT_FALSE(os.source.empty());
  if (os.l1d && os.l2) {
    EXPECT_LT(os.l1d, os.l2);
  }
  if (os.l2 && os.l3) {
    EXPECT_LT(os.l2, os.l3);
  }
}

TEST(CacheLatencySweep, RealCurveRisesAndFindsL1) {
  const CacheLatencySweep sweep = measure_cache_latency();
  ASSERT_GE(sweep.curve.size(), 30u);
  EXPECT_EQ(sweep.curve.front().bytes, 4 * KiB);
  EXPECT_EQ(sweep.curve.back().bytes, 128 * MiB);
  for (const auto& p : sweep.curve) {
    EXPECT_TRUE(std::isfinite(p.ns) && p.ns > 0.0) << p.bytes;
  }
  // Ratios within one sweep, with wide margins: memory is several times slower than L1 (about
  // 50-100x on real hosts), whatever the load on the machine.
  EXPECT_GT(sweep.memory_ns, 2.0 * sweep.curve.front().ns);
  EXPECT_DOUBLE_EQ(sweep.memory_ns, sweep.curve.back().ns);
  ASSERT_FALSE(sweep.levels.empty());
  for (size_t i = 1; i < sweep.levels.size(); ++i) {
    EXPECT_GT(sweep.levels[i].bytes, sweep.levels[i - 1].bytes);
  }
  const OsCacheSizes os = os_cache_sizes();
  if (os.l1d) {
    // Each point is the fastest of three runs, so a preempted run is dropped, and a lone slow
    // point is an outlier to the inference; the L1 step is a 3-4x jump.
    EXPECT_LE(sweep.levels[0].bytes, 2 * os.l1d);
    EXPECT_GE(sweep.levels[0].bytes, os.l1d / 2);
  }
  EXPECT_NE(sweep.method.find("pointer chase"), std::string::npos);
}

}  // namespace
}  // namespace headway::cpu
