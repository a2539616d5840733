#include "targets/sim/sim_target.h"

#include <fmt/format.h>
#include <gtest/gtest.h>

#include <cmath>
#include <filesystem>
#include <map>
#include <sstream>

#include "statistics/calibration.h"
#include "targets/fact_names.h"
#include "targets/sim/sim_landscape.h"

namespace headway::sim {
namespace {

const KernelContract& qkv() { return *builtin_kernel("qkv"); }

targets::Artifact built(SimTarget& t, const std::string& source) {
  const auto b = t.build(source, {});
  EXPECT_TRUE(b.built()) << b.diagnostics;
  return b.artifact;
}

TEST(SimTarget, ToolchainsAreIdentifiedByTheirSpec) {
  SimTarget t;
  EXPECT_EQ(t.name(), "sim");
  EXPECT_EQ(t.toolchain(), "sim-1");
  EXPECT_TRUE(t.identity().found);
  EXPECT_EQ(t.identity().id, "sim:sim-1");
  EXPECT_EQ(t.select_toolchain("sim-2").id, "sim:sim-2");
  EXPECT_FALSE(t.select_toolchain("missing-3").found);
  EXPECT_EQ(t.build("sim-x 1\n", {}).status, targets::BuildOutcome::Status::kToolchainMissing);
}

TEST(SimTarget, AStopAfterSpecStopsTheDeviceAndABadOneIsTheUsers) {
  SimTarget t("sim-1:stop-after=3");
  ASSERT_TRUE(t.identity().found) << t.identity().error;
  const auto built = t.build("sim-x 1\n", {});
  auto session = t.start_session(*builtin_kernel("qkv"), {built.artifact}, 1);
  ASSERT_TRUE(session.ok());
  for (int i = 0; i < 3; ++i) EXPECT_TRUE(session.value()->reading(0).ok());
  EXPECT_THROW((void)session.value()->reading(0), targets::DeviceStopped);
  for (const char* bad : {"sim-1:stop-after=0", "sim-1:stop-after=x", "sim-1:stop-after=3x"}) {
    const auto info = t.select_toolchain(bad);
    EXPECT_FALSE(info.found) << bad;
    EXPECT_EQ(info.error_code, ErrorCode::kInvalidInput) << bad;
    EXPECT_NE(info.error.find("stop-after"), std::string::npos) << info.error;
  }
}

// `:baseline-wrong=KERNEL`: that kernel's baseline alone is found wrong when timed; options
// combine, and an unknown one is the user's error.
TEST(SimTarget, ABaselineWrongSpecMakesOneKernelsBaselineWrongUnderTiming) {
  SimTarget t("sim-1:baseline-wrong=ffn:stop-after=100");
  ASSERT_TRUE(t.identity().found) << t.identity().error;
  for (const char* name : {"ffn", "qkv"}) {
    const KernelContract& kernel = *builtin_kernel(name);
    const auto built = t.build(t.baseline_source(kernel), {});
    ASSERT_TRUE(built.built());
    const auto timing = t.time_side_by_side(kernel, {built.artifact}, 3, 1).front();
    EXPECT_EQ(timing.ok(), std::string(name) != "ffn") << name << ": " << timing.failure;
  }
  EXPECT_EQ(t.baseline_source(*builtin_kernel("qkv")),
            SimTarget("sim-1").baseline_source(*builtin_kernel("qkv")));
  for (const char* bad : {"sim-1:baseline-wrong=", "sim-1:wrong=ffn"}) {
    const auto info = t.select_toolchain(bad);
    EXPECT_FALSE(info.found) << bad;
    EXPECT_EQ(info.error_code, ErrorCode::kInvalidInput) << bad;
    EXPECT_NE(info.error.find("baseline-wrong=KERNEL"), std::string::npos) << info.error;
  }
}

TEST(SimTarget, BuildsOncePerSourceAndToolchain) {
  SimTarget t;
  const auto a = t.build("sim-x 0.5\n", {});
  ASSERT_TRUE(a.built());
  EXPECT_FALSE(a.cached);
  EXPECT_TRUE(a.artifact.path.empty());
  const auto again = t.build("sim-x 0.5\n", {});
  EXPECT_TRUE(again.cached);
  EXPECT_EQ(again.artifact.id, a.artifact.id);
  EXPECT_EQ(t.builds(), 1);
  t.select_toolchain("sim-2");
  EXPECT_NE(t.build("sim-x 0.5\n", {}).artifact.id, a.artifact.id);
  const auto broken = t.build("sim-build-error 'x' was not declared in this scope\n", {});
  EXPECT_EQ(broken.status, targets::BuildOutcome::Status::kCompileError);
  EXPECT_EQ(t.normalize_diagnostic(broken.diagnostics).signature,
            "error: '<id>' was not declared in this scope");
  EXPECT_EQ(t.normalize_diagnostic(broken.diagnostics).line,
            "error: 'x' was not declared in this scope");
}

TEST(SimTarget, ChecksFollowTheLandscape) {
  SimTarget t;
  using S = targets::CheckOutcome::Status;
  EXPECT_EQ(t.check(qkv(), built(t, "sim-x 1\n"), {}).status, S::kCorrect);
  EXPECT_EQ(t.check(qkv(), built(t, "sim-wrong\n"), {}).status, S::kIncorrect);
  EXPECT_EQ(t.check(qkv(), built(t, "sim-crash\n"), {}).status, S::kCrashed);
  EXPECT_EQ(t.check(qkv(), built(t, "sim-hang\n"), {}).status, S::kTimedOut);
  EXPECT_EQ(t.check(qkv(), built(t, "sim-x 1\n"), {7, {}}).seed, 7u);
}

TEST(SimTarget, TimesAreTrueTimesWithNoise) {
  SimTargetConfig config;
  config.cv = 0.01;
  SimTarget t("", config);
  const auto base = built(t, t.baseline_source(qkv()));
  const auto fast = built(t, "sim-x 0.5\n");
  const double floor_s = static_cast<double>(qkv().bytes_to_move()) / (config.read_gbps * 1e9);
  EXPECT_DOUBLE_EQ(*t.true_seconds(qkv(), base), config.baseline_over_floor * floor_s);
  EXPECT_DOUBLE_EQ(*t.true_seconds(qkv(), fast), 0.5 * *t.true_seconds(qkv(), base));
  const auto timed = t.time_side_by_side(qkv(), {base, fast}, 21, 3);
  ASSERT_EQ(timed.size(), 2u);
  ASSERT_TRUE(timed[0].ok() && timed[1].ok());
  EXPECT_EQ(timed[0].seconds.size(), 21u);
  EXPECT_NEAR(timed[1].median_seconds / timed[0].median_seconds, 0.5, 0.02);
  EXPECT_NEAR(timed[0].cv, 0.01, 0.006);
  // The same seed gives the same readings.
  EXPECT_EQ(t.time_side_by_side(qkv(), {base, fast}, 21, 3)[1].seconds, timed[1].seconds);
  // A candidate that does not run cannot be timed.
  EXPECT_FALSE(t.time_side_by_side(qkv(), {base, built(t, "sim-crash\n")}, 3, 1)[0].ok());
  auto session = t.start_session(qkv(), {base, fast}, 9);
  ASSERT_TRUE(session.ok());
  EXPECT_EQ(session.value()->arms(), 2);
  EXPECT_GT(session.value()->reading(0).value(), session.value()->reading(1).value());
}

TEST(SimTarget, PairsArmsOnASimDeviceWithTheirTrueEffect) {
  SimTarget t;
  const auto base = built(t, "sim-x 1\n");
  const auto fast = built(t, "sim-x 0.8\n");
  auto device = t.paired_device(qkv(), base, fast, 5);
  ASSERT_TRUE(device.ok()) << device.error().message;
  auto* sim = dynamic_cast<targets::SimulatedPairedDevice*>(device.value().get());
  ASSERT_NE(sim, nullptr);
  EXPECT_NEAR(sim->device().true_seconds(statistics::Arm::kCandidate) /
                  sim->device().true_seconds(statistics::Arm::kHead),
              0.8, 1e-12);
  EXPECT_FALSE(t.paired_device(qkv(), base, built(t, "sim-wrong\n"), 5).ok());
}

TEST(SimTarget, FactsGiveTheFloors) {
  SimTarget t;
  std::map<std::string, double> values;
  for (const auto& f : t.measure_facts({})) values[f.name] = f.value;
  for (const auto& name : t.floor_facts()) EXPECT_TRUE(values.count(name)) << name;
  const auto floors = t.floors(qkv(), values);
  EXPECT_DOUBLE_EQ(floors.memory_ms, static_cast<double>(qkv().bytes_to_move()) /
                                         (values[targets::kReadBandwidth] * 1e9) * 1e3);
  ASSERT_TRUE(floors.instruction_ms);
  EXPECT_GT(*floors.instruction_ms, 0.0);
}

TEST(SimTarget, CalibratesOnSimDevicesWithTheConfiguredNoise) {
  SimTarget t;
  statistics::CalibrateRequest r;
  r.target = "sim";
  r.cv = 0.02;
  EXPECT_DOUBLE_EQ(*t.known_s0(r), statistics::s0_for_cv(0.02));
  auto device = t.calibration_devices(r)(0);
  ASSERT_NE(dynamic_cast<statistics::SimDevice*>(device.get()), nullptr);
}

// A design of the library with its parameters set (defaults for those not given).
SimModel design_at(const std::string& text, std::map<std::string, int> params) {
  std::istringstream in(text);
  std::string defines;
  for (std::string line; std::getline(in, line);) {
    std::istringstream w(line);
    std::string slashes, param, name;
    w >> slashes >> param >> name;
    if (param != "param") continue;
    std::string word;
    while (w >> word && word != "default") {
    }
    int value = 0;
    w >> value;
    params.emplace(name, value);
  }
  for (const auto& [name, value] : params) defines += fmt::format("#define {} {}\n", name, value);
  return simulate_source(defines + text);
}

// The library has the structure of the real kernels' (docs/ABLATIONS.md): a few large gains, many
// small ones, a design the chip cannot run, and a static cost that misleads on some parameters.
TEST(SimTarget, TheDesignLibraryHasTheStructureOfTheRealKernels) {
  std::map<std::string, std::string> designs;
  for (const auto& d : SimTarget().design_files(*builtin_kernel("qkv"))) {
    designs[std::filesystem::path(d.path).stem().string()] = d.text;
  }
  ASSERT_EQ(designs.size(), 4u);
  // Large gains: each new design at its best is far from the baseline and the one before.
  const double blocked = design_at(designs["blocked"], {{"P_BLOCK", 4}}).time_factor;
  const double threaded =
      design_at(designs["threaded"], {{"P_THREADS", 4}, {"P_CHUNK", 16}}).time_factor;
  EXPECT_LT(blocked, 0.75);
  EXPECT_LT(threaded / blocked, 0.5);
  // Many small gains: each step of a tuned knob from its default toward its best gains 1.5-3%,
  // and the tuned design at its defaults edges out the threaded one at its best.
  const std::string& tuned = designs["tuned"];
  const double tuned_default = design_at(tuned, {}).time_factor;
  EXPECT_LT(tuned_default, threaded);
  EXPECT_GT(tuned_default, 0.95 * threaded);
  int small_steps = 0;
  for (const auto& [knob, path] : std::map<std::string, std::vector<int>>{
           {"P_PREFETCH", {1, 2, 4}}, {"P_UNROLL", {1, 2, 4}}, {"P_TILE", {16, 32, 64}}}) {
    for (size_t i = 1; i < path.size(); ++i) {
      const double before = design_at(tuned, {{knob, path[i - 1]}}).time_factor;
      const double after = design_at(tuned, {{knob, path[i]}}).time_factor;
      EXPECT_GE(1 - after / before, 0.014) << knob << " " << path[i];
      EXPECT_LE(1 - after / before, 0.03) << knob << " " << path[i];
      ++small_steps;
    }
  }
  EXPECT_EQ(small_steps, 6);
  // From the baseline (6x the floor) the large gains reach 1.2x the floor, the small ones 1.05x.
  EXPECT_NEAR(6 * threaded, 1.2, 1e-9);
  EXPECT_NEAR(
      6 * design_at(tuned, {{"P_PREFETCH", 4}, {"P_UNROLL", 4}, {"P_TILE", 64}}).time_factor, 1.05,
      1e-9);
  // Variants that gain nothing: P_ALIGN changes no time, P_SPLIT=2 costs 1%.
  for (int align : {32, 64}) {
    EXPECT_EQ(design_at(tuned, {{"P_ALIGN", align}}).time_factor, tuned_default) << align;
  }
  EXPECT_NEAR(design_at(tuned, {{"P_SPLIT", 2}}).time_factor / tuned_default, 1.01, 1e-3);
  // A design the chip cannot run, whatever its parameters: it needs an instruction set the
  // simulated chip's facts say it lacks.
  for (int unroll : {1, 2})
    EXPECT_TRUE(design_at(designs["wide"], {{"P_UNROLL", unroll}}).build_error);
  EXPECT_NE(designs["wide"].find("// requires: avx512f"), std::string::npos);
  bool lacks_it = false;
  for (const auto& f : SimTarget().measure_facts({})) {
    if (f.name == "isa.avx512f") lacks_it = f.value == 0.0;
  }
  EXPECT_TRUE(lacks_it);
  // A static cost that misleads: prefetching further is truly faster, predicted slower.
  const SimModel near = design_at(tuned, {{"P_PREFETCH", 1}});
  const SimModel far = design_at(tuned, {{"P_PREFETCH", 4}});
  EXPECT_LT(far.time_factor, near.time_factor);
  EXPECT_GT(far.static_cost, 1.1 * near.static_cost);
  // Elsewhere it ranks honestly.
  EXPECT_LT(design_at(designs["threaded"], {{"P_THREADS", 4}}).static_cost,
            design_at(designs["threaded"], {{"P_THREADS", 1}}).static_cost);
}

TEST(SimTarget, CarriesDocsBaselinesAndADesignLibrary) {
  SimTarget t;
  EXPECT_FALSE(t.docs().files.empty());
  EXPECT_NE(t.baseline_source(qkv()).find("sim-x 1"), std::string::npos);
  const auto designs = t.design_files(*builtin_kernel("qkv"));
  ASSERT_EQ(designs.size(), 4u);
  for (const auto& d : designs) {
    EXPECT_EQ(d.text.rfind("// headway-design: ", 0), 0u) << d.path;
  }
}

}  // namespace
}  // namespace headway::sim
