#include "targets/simulated_device.h"

#include <gtest/gtest.h>

#include <thread>
#include <vector>

namespace headway::targets {
namespace {

SimulatedReadings readings(std::shared_ptr<std::atomic<int64_t>> served,
                           std::optional<int64_t> limit, HoldDevice hold = {}) {
  return {0.01, ReadingBudget(std::move(served), limit, "test device"), "it cheats", hold};
}

TEST(SimulatedDevice, TheBudgetIsSharedAndStopsTheDeviceAtItsLimitFromAnyThread) {
  auto served = std::make_shared<std::atomic<int64_t>>(0);
  std::atomic<int> stopped{0};
  std::vector<std::thread> threads;
  for (int t = 0; t < 4; ++t) {
    threads.emplace_back([&] {
      ReadingBudget budget(served, 100, "test device");
      for (int i = 0; i < 50; ++i) {
        try {
          budget.take();
        } catch (const DeviceStopped& e) {
          ++stopped;
          EXPECT_STREQ(e.what(), "the test device stopped: its budget of 100 readings is spent");
        }
      }
    });
  }
  for (auto& t : threads) t.join();
  EXPECT_EQ(served->load(), 100);
  EXPECT_EQ(stopped.load(), 100);
}

TEST(SimulatedDevice, ASessionReadsEachArmsTrueTimeWithNoiseAndNamesACheatOnceRead) {
  auto served = std::make_shared<std::atomic<int64_t>>(0);
  double held = 0;
  const std::vector<Artifact> artifacts = {{"a", {}, {}}, {"b", {}, {}}};
  auto session = simulated_session(artifacts, {{true, 2.0, false}, {true, 1.0, true}}, 7,
                                   readings(served, std::nullopt, [&](double s) { held += s; }));
  ASSERT_TRUE(session) << session.error().message;
  const double a = session.value()->reading(0).value();
  EXPECT_NEAR(a, 2.0, 0.2);
  EXPECT_FALSE(session.value()->verify_arms()) << "the cheat was not read yet";
  const double b = session.value()->reading(1).value();
  EXPECT_NEAR(b, 1.0, 0.1);
  EXPECT_DOUBLE_EQ(held, a + b);
  EXPECT_EQ(served->load(), 2);
  const auto breach = session.value()->verify_arms();
  ASSERT_TRUE(breach);
  EXPECT_EQ(breach->arm, 1);
  EXPECT_EQ(breach->reason, "it cheats");

  auto again = simulated_session(artifacts, {{true, 2.0, false}, {true, 1.0, true}}, 7,
                                 readings(served, std::nullopt));
  EXPECT_DOUBLE_EQ(again.value()->reading(0).value(), a) << "a function of the seed";
}

TEST(SimulatedDevice, AnArmThatDoesNotRunIsAnErrorAndFailsEveryTiming) {
  auto served = std::make_shared<std::atomic<int64_t>>(0);
  const std::vector<Artifact> artifacts = {{"good", {}, {}}, {"bad", {}, {}}};
  auto session = simulated_session(artifacts, {{true, 1.0, false}, {false, 1.0, false}}, 1,
                                   readings(served, {}));
  ASSERT_FALSE(session);
  EXPECT_EQ(session.error().message, "cannot start bad: it does not run correctly");
  const auto timings = time_simulated_side_by_side(
      simulated_session(artifacts, {{true, 1.0, false}, {false, 1.0, false}}, 1,
                        readings(served, {})),
      artifacts, 3);
  ASSERT_EQ(timings.size(), 2u);
  for (const auto& t : timings) EXPECT_EQ(t.failure, "cannot start bad: it does not run correctly");
  EXPECT_FALSE(
      simulated_paired_device({false, 1.0, false}, {true, 1.0, false}, 1, readings(served, {})));
}

TEST(SimulatedDevice, APairedDeviceHasTheArmsTrueEffectAndThrowsForACheatingArm) {
  auto served = std::make_shared<std::atomic<int64_t>>(0);
  auto device =
      simulated_paired_device({true, 2.0, false}, {true, 1.5, true}, 3, readings(served, 1));
  ASSERT_TRUE(device) << device.error().message;
  auto* simulated = dynamic_cast<SimulatedPairedDevice*>(device.value().get());
  ASSERT_NE(simulated, nullptr);
  EXPECT_NEAR(simulated->device().true_seconds(statistics::Arm::kCandidate), 1.5, 1e-12);
  EXPECT_GT(device.value()->run_once(statistics::Arm::kHead, nullptr), 0.0);
  EXPECT_THROW(device.value()->run_once(statistics::Arm::kHead, nullptr), DeviceStopped)
      << "a budget of one reading";
  try {
    device.value()->verify_arms();
    FAIL() << "the candidate cheats";
  } catch (const statistics::ArmDisqualified& e) {
    EXPECT_EQ(e.arm(), statistics::Arm::kCandidate);
    EXPECT_STREQ(e.what(), "it cheats");
  }
}

}  // namespace
}  // namespace headway::targets
