#include "loop/acceptance_procedure.h"

#include <gtest/gtest.h>

#include "common/file_io.h"
#include "kernels/spec_kernel.h"
#include "statistics/mixed_paired_device.h"
#include "statistics/reading_sink.h"
#include "statistics/sim_device.h"
#include "store/test_temp_dir.h"
#include "targets/sim/sim_target.h"

namespace headway::loop {
namespace {

statistics::SimDevice sim_device(double effect_pct) {
  statistics::SimConfig config;
  config.effect_pct = effect_pct;
  config.cv = 0.01;
  config.seed = 11;
  return statistics::SimDevice(config);
}

PairedVerdict run(statistics::PairedDevice& device, const AcceptanceOptions& options,
                  std::optional<double> known_s0 = std::nullopt) {
  Rng coin(5);
  statistics::MemorySink sink;
  auto verdict = run_paired_test(device, options, known_s0, coin, {"qkv", "c", 0, 0}, sink);
  EXPECT_TRUE(verdict.ok()) << verdict.error().message;
  return verdict.value();
}

TEST(AcceptanceProcedure, TheEffectIsTheShareOfTheHeadsTimeTheCandidateSaves) {
  auto faster = sim_device(20.0);
  const PairedVerdict f = run(faster, {});
  EXPECT_EQ(f.record.outcome, statistics::Outcome::kFaster);
  EXPECT_NEAR(f.effect_pct, 20.0, 2.0);
  EXPECT_LE(f.ci_low_pct, f.effect_pct);
  EXPECT_GE(f.ci_high_pct, f.effect_pct);
  auto slower = sim_device(-20.0);
  const PairedVerdict s = run(slower, {});
  EXPECT_EQ(s.record.outcome, statistics::Outcome::kSlower);
  EXPECT_NEAR(s.effect_pct, -20.0, 2.0);
}

TEST(AcceptanceProcedure, AKnownPriorTakesNoWarmUpAndIsTheOneDecidedBy) {
  auto device = sim_device(20.0);
  const PairedVerdict v = run(device, {}, 0.0123);
  EXPECT_EQ(v.warmup_readings, 0);
  EXPECT_DOUBLE_EQ(v.settings.s0, 0.0123);
  auto fresh = sim_device(20.0);
  AcceptanceOptions options;
  options.warmup_readings = 6;
  EXPECT_EQ(run(fresh, options).warmup_readings, 6);
}

TEST(AcceptanceProcedure, ARuleSettingOutOfRangeIsAnErrorBeforeAnyReading) {
  auto device = sim_device(20.0);
  AcceptanceOptions options;
  options.alpha = 1.5;
  Rng coin(5);
  statistics::MemorySink sink;
  const auto verdict = run_paired_test(device, options, 0.01, coin, {"qkv", "c", 0, 0}, sink);
  ASSERT_FALSE(verdict.ok());
  EXPECT_NE(verdict.error().message.find("alpha"), std::string::npos) << verdict.error().message;
  EXPECT_TRUE(sink.readings().empty());
}

TEST(AcceptanceProcedure, AKernelWithSeveralShapeSetsIsPairedOverAllOfThem) {
  store::TestTempDir cache;
  auto kernel = load_spec_kernel(
      std::filesystem::path(HEADWAY_SOURCE_DIR) / "kernels/specs/rmsnorm/rmsnorm.toml",
      cache.path());
  ASSERT_TRUE(kernel.ok()) << kernel.error().message;
  ASSERT_EQ((*kernel)->shape_sets().size(), 2u);
  sim::SimTarget target;
  const auto a = target.build("sim-x 1\n", cache.path()).artifact;
  const auto b = target.build("sim-x 0.8\n", cache.path()).artifact;
  auto mixed = open_paired_device(target, **kernel, a, b, 1);
  ASSERT_TRUE(mixed.ok()) << mixed.error().message;
  EXPECT_NE(dynamic_cast<statistics::MixedPairedDevice*>(mixed.value().get()), nullptr);
  auto one = open_paired_device(target, *builtin_kernel("qkv"), a, b, 1);
  ASSERT_TRUE(one.ok());
  EXPECT_EQ(dynamic_cast<statistics::MixedPairedDevice*>(one.value().get()), nullptr);
}

// With "small" check-only, rmsnorm has one timed shape set: the test pairs at it alone.
TEST(AcceptanceProcedure, ACheckOnlyShapeSetIsNeverPaired) {
  store::TestTempDir dir;
  const std::filesystem::path from =
      std::filesystem::path(HEADWAY_SOURCE_DIR) / "kernels/specs/rmsnorm";
  for (const auto& entry : std::filesystem::directory_iterator(from))
    std::filesystem::copy_file(entry.path(), dir.path() / entry.path().filename());
  std::string text = read_file(dir.path() / "rmsnorm.toml").value();
  const std::string small = "name = \"small\"\n";
  text.insert(text.find(small) + small.size(), "check_only = true\n");
  write_file(dir.path() / "rmsnorm.toml", text);
  auto kernel = load_spec_kernel(dir.path() / "rmsnorm.toml", dir.path() / "cache");
  ASSERT_TRUE(kernel.ok()) << kernel.error().message;
  ASSERT_EQ((*kernel)->shape_sets().size(), 2u);
  sim::SimTarget target;
  const auto a = target.build("sim-x 1\n", dir.path()).artifact;
  const auto b = target.build("sim-x 0.8\n", dir.path()).artifact;
  auto paired = open_paired_device(target, **kernel, a, b, 1);
  ASSERT_TRUE(paired.ok()) << paired.error().message;
  EXPECT_EQ(dynamic_cast<statistics::MixedPairedDevice*>(paired.value().get()), nullptr);
}

}  // namespace
}  // namespace headway::loop
