// The cpu target through the Target interface: the host compiler, the runner processes and the
// timing they wrap, on the attn_out baseline.
#include "targets/cpu/cpu_target.h"

#include <gtest/gtest.h>

#include "kernels/declared_kernel.h"
#include "store/test_temp_dir.h"
#include "targets/cpu/attn_out_sources_test_support.h"
#include "targets/cpu/cpu_paired_device.h"
#include "targets/fact_names.h"

namespace headway::cpu {
namespace {

const KernelContract& attn_out() { return *builtin_kernel("attn_out"); }

TEST(CpuTarget, IdentifiesTheSelectedCompiler) {
  CpuTarget t;
  EXPECT_EQ(t.name(), "cpu");
  EXPECT_EQ(t.toolchain(), "g++");
  ASSERT_TRUE(t.identity().found) << t.identity().error;
  EXPECT_EQ(t.identity().id, identify(Toolchain{}).id);
  EXPECT_FALSE(t.select_toolchain("/nonexistent/c++").found);
  EXPECT_EQ(t.toolchain(), "/nonexistent/c++");
  store::TestTempDir cache;
  EXPECT_EQ(t.build("int x;\n", cache.path()).status,
            targets::BuildOutcome::Status::kToolchainMissing);
}

// Timing runs on this machine's own cores, so the loop builds nothing while it times.
TEST(CpuTarget, TimesOnTheHost) { EXPECT_TRUE(CpuTarget().times_on_host()); }

// A known effect e%: the candidate takes e% less time than the head, whichever arm is slowed.
TEST(CpuTarget, AKnownEffectSlowsTheArmThatMakesTheCandidateThatMuchFaster) {
  const InjectedSlowdown faster = injected_slowdown(3.0);
  EXPECT_EQ(faster.arm, statistics::Arm::kHead);
  EXPECT_NEAR(1.0 / (1.0 + faster.fraction), 0.97, 1e-12);
  const InjectedSlowdown slower = injected_slowdown(-3.0);
  EXPECT_EQ(slower.arm, statistics::Arm::kCandidate);
  EXPECT_NEAR(slower.fraction, 0.03, 1e-12);
  EXPECT_EQ(injected_slowdown(0.0).fraction, 0.0);
}

// The model a pool's jobs are pinned to: /proc/cpuinfo's, the same that lscpu shows.
TEST(CpuTarget, NamesItsDeviceModel) {
  const std::string model = CpuTarget().device_model();
  EXPECT_FALSE(model.empty());
  EXPECT_EQ(model.find(':'), std::string::npos) << model;
  EXPECT_NE(model.front(), ' ') << model;
}

TEST(CpuTarget, BuildsChecksAndTimesTheBaseline) {
  CpuTarget t;
  store::TestTempDir cache;
  const auto built = t.build(t.baseline_source(attn_out()), cache.path());
  ASSERT_TRUE(built.built()) << built.diagnostics;
  EXPECT_TRUE(std::filesystem::exists(built.artifact.path));
  EXPECT_EQ(built.artifact.id, built.artifact.path.stem().string());
  EXPECT_TRUE(t.build(t.baseline_source(attn_out()), cache.path()).cached);
  const auto check = t.check(attn_out(), built.artifact, {11, {}});
  EXPECT_TRUE(check.correct()) << check.description;
  EXPECT_EQ(check.seed, 11u);
  EXPECT_EQ(check.kind, "correct");
  // The same object twice: the same kernel, so the two medians are close.
  const auto timed = t.time_side_by_side(attn_out(), {built.artifact, built.artifact}, 3, 1);
  ASSERT_EQ(timed.size(), 2u);
  for (const auto& r : timed) {
    ASSERT_TRUE(r.ok()) << r.failure;
    EXPECT_EQ(r.seconds.size(), 3u);
    EXPECT_GT(r.median_seconds, 0.0);
    EXPECT_EQ(r.accounting["readings"], 2 + 6);  // the session's probe of each object, then 3 each
    EXPECT_GT(double(r.accounting["round_trip_seconds"]), 0.0);
    EXPECT_LT(double(r.accounting["round_trip_seconds"]), r.median_seconds);
  }
  EXPECT_LT(timed[0].median_seconds / timed[1].median_seconds, 2.0);
  EXPECT_GT(timed[0].median_seconds / timed[1].median_seconds, 0.5);
  // One object that cannot load: every result carries the failure, and no median.
  targets::Artifact missing = built.artifact;
  missing.path = cache.path() / "missing.so";
  for (const auto& r : t.time_side_by_side(attn_out(), {built.artifact, missing}, 3, 1)) {
    EXPECT_FALSE(r.ok());
    EXPECT_NE(r.failure.find("missing.so"), std::string::npos) << r.failure;
    EXPECT_EQ(r.median_seconds, 0.0);
  }
  auto session = t.start_session(attn_out(), {built.artifact}, 1);
  ASSERT_TRUE(session.ok()) << session.error().message;
  EXPECT_GT(session.value()->reading(0).value(), 0.0);
  auto device = t.paired_device(attn_out(), built.artifact, built.artifact, 1);
  ASSERT_TRUE(device.ok()) << device.error().message;
  nlohmann::json clock;
  EXPECT_GT(device.value()->run_once(statistics::Arm::kCandidate, &clock), 0.0);
}

// A session's reading that follows another arm's runs on its inputs and compares the two call by
// call: two honest arms' calls are all compared, and a wrong arm is found by the reading after
// its own, which stands, while the wrong arm is out and is its breach.
TEST(CpuTarget, ASessionComparesEachReadingWithTheOtherArmsBeforeIt) {
  CpuTarget t;
  store::TestTempDir cache;
  const auto honest = t.build(attn_out_baseline(), cache.path());
  const auto copy = t.build(attn_out_baseline() + "\n// a copy\n", cache.path());
  const auto wrong =
      t.build(around_attn_out_baseline("real(a);\na->residual[0] ^= 0x40;"), cache.path());
  for (const auto* b : {&honest, &copy, &wrong}) ASSERT_TRUE(b->built()) << b->diagnostics;

  auto pair = t.start_session(attn_out(), {honest.artifact, copy.artifact}, 1);
  ASSERT_TRUE(pair.ok()) << pair.error().message;
  ASSERT_TRUE(pair.value()->reading(0).ok());
  EXPECT_EQ(pair.value()->accounting()["compared_calls"], 0) << "the first reading of a pair";
  ASSERT_TRUE(pair.value()->reading(1).ok());
  const int compared = pair.value()->accounting()["compared_calls"];
  EXPECT_GT(compared, 0) << "the second reading's calls, each compared with the first's";
  ASSERT_TRUE(pair.value()->reading(0).ok());
  EXPECT_EQ(pair.value()->accounting()["compared_calls"], compared) << "a pair's inputs serve two";
  EXPECT_FALSE(pair.value()->verify_arms());

  auto session = t.start_session(attn_out(), {honest.artifact, wrong.artifact}, 1);
  ASSERT_TRUE(session.ok()) << session.error().message;
  ASSERT_TRUE(session.value()->reading(1).ok()) << "nothing to compare the first reading with";
  const auto after = session.value()->reading(0);
  ASSERT_TRUE(after.ok()) << "the honest reading stands: " << after.error().message;
  const auto again = session.value()->reading(1);
  ASSERT_FALSE(again.ok()) << "the wrong arm is out";
  EXPECT_NE(again.error().message.find("disagreed with the other arm's call"), std::string::npos)
      << again.error().message;
  const auto breach = session.value()->verify_arm(1);
  ASSERT_TRUE(breach);
  EXPECT_EQ(breach->arm, 1);
  EXPECT_FALSE(session.value()->verify_arm(0)) << "the honest arm is not blamed";
  EXPECT_TRUE(session.value()->reading(0).ok());
}

TEST(CpuTarget, MapsCheckFailuresAndDiagnostics) {
  CpuTarget t;
  store::TestTempDir cache;
  // No entry point: the object does not load.
  const auto empty = t.build("#include \"headway_kernel.h\"\nint unrelated = 1;\n", cache.path());
  ASSERT_TRUE(empty.built()) << empty.diagnostics;
  const auto check = t.check(attn_out(), empty.artifact, {});
  EXPECT_EQ(check.status, targets::CheckOutcome::Status::kUnloadable) << check.description;
  EXPECT_EQ(check.kind, "load-failed");
  const auto broken = t.build("void f() { hw_undefined(1); }\n", cache.path());
  ASSERT_EQ(broken.status, targets::BuildOutcome::Status::kCompileError);
  const auto d = t.normalize_diagnostic(broken.diagnostics);
  EXPECT_EQ(d.signature.rfind("error: '<id>' was not declared", 0), 0u) << d.signature;
  EXPECT_NE(d.line.find("hw_undefined"), std::string::npos) << d.line;
}

TEST(CpuTarget, CarriesDocsDesignsAndFloors) {
  CpuTarget t;
  const auto docs = t.docs();
  EXPECT_EQ(docs.files.size(), 2u);
  EXPECT_EQ(docs.summary_path, "docs/targets/cpu-summary.md");
  EXPECT_FALSE(docs.summary.empty());
  EXPECT_FALSE(t.design_files(*builtin_kernel("attn_out")).empty());
  EXPECT_TRUE(t.design_files(DeclaredKernel("no_such_kernel", 8)).empty());
  const std::map<std::string, double> facts = {
      {targets::kReadBandwidth, 10.0}, {targets::kDecodeF8, 20.0}, {targets::kDecodeNvfp4, 5.0}};
  const auto floors = t.floors(attn_out(), facts);
  EXPECT_DOUBLE_EQ(floors.memory_ms, static_cast<double>(attn_out().bytes_to_move()) / 10e9 * 1e3);
  EXPECT_DOUBLE_EQ(*floors.instruction_ms,
                   static_cast<double>(attn_out().quantized_weight_bytes()) / 20e9 * 1e3);
}

}  // namespace
}  // namespace headway::cpu
