#include "targets/sim/sim_devices.h"

#include <gtest/gtest.h>

#include <thread>
#include <vector>

namespace headway::sim {
namespace {

TEST(SimDevices, ReadingsWaitForAFreeDeviceAndAreAccountedAsBusy) {
  SimDevices devices(2, 1.0);
  std::vector<std::thread> readers;
  const auto start = std::chrono::steady_clock::now();
  for (int i = 0; i < 4; ++i) readers.emplace_back([&] { devices.read(0.1); });
  for (auto& t : readers) t.join();
  const double wall =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  EXPECT_GE(wall, 0.2) << "four readings of 0.1 s on two devices take two rounds";
  const SimDeviceUse use = devices.use();
  EXPECT_EQ(use.devices, 2);
  EXPECT_EQ(use.readings, 4);
  EXPECT_EQ(use.most_busy_at_once, 2);
  EXPECT_GE(use.busy_seconds, 0.4);
  EXPECT_GE(use.held_seconds, 2 * wall);
  EXPECT_GT(use.busy_share(), 0.0);
  EXPECT_LE(use.busy_share(), 1.0);
}

TEST(SimDevices, AZeroTimeScaleHoldsNothingAndBadSettingsAreRefused) {
  SimDevices instant(1, 0.0);
  instant.read(10.0);
  EXPECT_EQ(instant.use().readings, 1);
  EXPECT_LT(instant.use().busy_seconds, 0.5);
  EXPECT_THROW(SimDevices(0, 1.0), std::invalid_argument);
  EXPECT_THROW(SimDevices(1, -1.0), std::invalid_argument);
}

}  // namespace
}  // namespace headway::sim
