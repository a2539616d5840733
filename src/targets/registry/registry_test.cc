#include "targets/registry/registry.h"

#include <gtest/gtest.h>

#include <algorithm>

#include "targets/sim/sim_target.h"

namespace headway::targets {
namespace {

TEST(TargetRegistry, CpuAndSimAreBuiltIn) {
  const auto names = target_names();
  EXPECT_TRUE(std::is_sorted(names.begin(), names.end()));
  EXPECT_NE(std::find(names.begin(), names.end(), "cpu"), names.end());
  EXPECT_NE(std::find(names.begin(), names.end(), "sim"), names.end());
  EXPECT_EQ(make_target("sim")->name(), "sim");
  EXPECT_EQ(make_target("cpu")->name(), "cpu");
  EXPECT_TRUE(make_target("no-such-target") == nullptr);
}

TEST(TargetRegistry, MakesTargetsWithTheToolchainSelected) {
  EXPECT_EQ(make_target("sim", "sim-7")->identity().id, "sim:sim-7");
  EXPECT_EQ(make_target("cpu", "/nonexistent/c++")->toolchain(), "/nonexistent/c++");
  EXPECT_FALSE(make_target("cpu", "/nonexistent/c++")->identity().found);
}

TEST(TargetRegistry, RegisteredTargetsAreFound) {
  register_target("registry-test-target", [](const std::string& spec) {
    sim::SimTargetConfig config;
    config.cv = 0.05;
    return std::make_unique<sim::SimTarget>(spec, config);
  });
  EXPECT_TRUE(make_target("registry-test-target") != nullptr);
  const auto names = target_names();
  EXPECT_NE(std::find(names.begin(), names.end(), "registry-test-target"), names.end());
  EXPECT_NE(target_names_text().find("registry-test-target"), std::string::npos);
}

TEST(TargetRegistry, CalibratesOnTheNamedTarget) {
  statistics::CalibrateRequest r;
  r.target = "sim";
  r.decisions = 20;
  const auto result = calibrate_on_target(r);
  ASSERT_TRUE(result.ok()) << result.error().message;
  EXPECT_EQ(result.value().s0_source, "configured cv");
  EXPECT_EQ(result.value().report.decisions, 20);
  r.target = "calibration-test-absent";
  const auto absent = calibrate_on_target(r);
  ASSERT_FALSE(absent.ok());
  EXPECT_EQ(absent.error().message.rfind(
                "target 'calibration-test-absent' is not available in this build (available: ", 0),
            0u)
      << absent.error().message;
}

}  // namespace
}  // namespace headway::targets
