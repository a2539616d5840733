#include "measure/device_registry.h"

#include <gtest/gtest.h>

#include <algorithm>

namespace headway::measure {
namespace {

class ConstantDevice final : public PairedDevice {
 public:
  double run_once(Arm arm, nlohmann::json*) override { return arm == Arm::kHead ? 1.0 : 0.5; }
};

TEST(DeviceRegistry, SimIsBuiltIn) {
  EXPECT_TRUE(lookup_device_factory("sim").has_value());
  const auto targets = available_targets();
  EXPECT_NE(std::find(targets.begin(), targets.end(), "sim"), targets.end());
  EXPECT_FALSE(lookup_device_factory("no-such-target").has_value());
}

TEST(DeviceRegistry, RegisteredTargetsAreFound) {
  register_device_factory("registry-test-target", [](const CalibrateRequest&) {
    return DeviceFactory([](int) { return std::make_unique<ConstantDevice>(); });
  });
  const auto maker = lookup_device_factory("registry-test-target");
  ASSERT_TRUE(maker.has_value());
  const DeviceFactory factory = (*maker)(CalibrateRequest{});
  nlohmann::json clock;
  EXPECT_EQ(factory(0)->run_once(Arm::kCandidate, &clock), 0.5);
  const auto targets = available_targets();
  EXPECT_TRUE(std::is_sorted(targets.begin(), targets.end()));
  EXPECT_NE(std::find(targets.begin(), targets.end(), "registry-test-target"), targets.end());
}

TEST(DeviceRegistry, SimFactorySeedsEachDecision) {
  CalibrateRequest request;
  request.seed = 5;
  request.effect_pct = 2.0;
  const DeviceFactory factory = sim_device_factory(request);
  auto a = factory(0);
  auto a_again = factory(0);
  auto b = factory(1);
  nlohmann::json clock;
  const double ta = a->run_once(Arm::kHead, &clock);
  EXPECT_EQ(ta, a_again->run_once(Arm::kHead, &clock));
  EXPECT_NE(ta, b->run_once(Arm::kHead, &clock));
  auto* sim = dynamic_cast<SimDevice*>(a.get());
  ASSERT_NE(sim, nullptr);
  EXPECT_DOUBLE_EQ(sim->true_seconds(Arm::kCandidate), sim->true_seconds(Arm::kHead) * 0.98);
  request.cv = -1.0;
  EXPECT_THROW(sim_device_factory(request), std::invalid_argument);
}

}  // namespace
}  // namespace headway::measure
