// The optimize loop on a simulated pool of devices: a round per device at once, each reading on
// a device of its own, every decision stored.
#include <gtest/gtest.h>

#include "targets/sim/sim_pool_loop_test_support.h"

namespace headway::sim {
namespace {

TEST(SimPoolLoop, ARoundPerDeviceRunsAtOnceAndEveryDeviceIsUsed) {
  const testing::PoolLoopRun r =
      testing::run_loop_on_sim_devices(4, 8, 4 << 20, 10.0, std::chrono::minutes(5));
  EXPECT_FALSE(r.summary.budget_spent) << "the sim library runs out first";
  EXPECT_EQ(r.summary.most_rounds_at_once, 4);
  EXPECT_GT(r.summary.tests, 8);
  EXPECT_EQ(r.use.devices, 4);
  EXPECT_EQ(r.use.most_busy_at_once, 4) << "four readings at once, on four devices";
  EXPECT_GT(r.use.readings, 0);
  EXPECT_GT(r.busy_share(), 0.0);
  EXPECT_LE(r.busy_share(), 1.0);
  EXPECT_GT(r.loop_cpu_seconds, 0.0);
  EXPECT_EQ(r.drain_seconds, 0.0) << "the run ended before its budget";
  EXPECT_LE(r.ramp_seconds, r.wall_seconds);
  EXPECT_NEAR(r.busy_share_within_budget, r.busy_share(), 0.15)
      << "the sampled busy devices agree with the devices' own accounting";
}

TEST(SimPoolLoop, WithoutDevicesReadingsTakeNoTimeAndNoUseIsKept) {
  SimTarget target;
  EXPECT_FALSE(target.device_use());
  SimTargetConfig config;
  config.devices = 2;
  SimTarget pooled("", config);
  ASSERT_TRUE(pooled.device_use());
  EXPECT_EQ(pooled.device_use()->devices, 2);
  EXPECT_EQ(pooled.device_use()->readings, 0);
}

}  // namespace
}  // namespace headway::sim
