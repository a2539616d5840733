// The command target on a toy toolchain made of shell one-liners (no sandbox, so the test does
// not depend on bubblewrap): builds in scratch copies, static cost, the oracle, multi-arm jobs,
// in-job pairs, retried device failures and the job budget.
#include "targets/command/command_target.h"

#include <gtest/gtest.h>

#include <fstream>

#include "kernels/contract.h"
#include "kernels/kernel_spec.h"
#include "pool/process_launcher_test_support.h"
#include "statistics/betting_rule.h"
#include "statistics/calibration.h"
#include "statistics/decision_rule.h"
#include "statistics/pair_runner.h"
#include "statistics/reading_sink.h"
#include "store/test_temp_dir.h"
#include "targets/command/job_session.h"
#include "targets/fact_names.h"

namespace headway::command {
namespace {

namespace fs = std::filesystem;

// Each kernel file holds "speed N" (its cycles on the toy device) and "cost N" (its makespan).
std::string manifest_text(int budget_jobs) {
  return R"(name = "toy"
repo = "repo"
editable = ["k/*.tk"]

[device]
read_gbps = 1000
time_unit = "ns"
max_arms = 4
retry = { output_regex = "node lost", max_attempts = 3 }

[budget]
jobs = )" +
         std::to_string(budget_jobs) +
         R"(

[kernels.qkv]
file = "k/qkv.tk"
bytes = 2000000

[commands.toolchain_version]
run = "echo toy 1.0"
sandbox = false
parse = { regex = 'toy ([0-9.]+)' }
example = "toy 1.0"

[commands.build]
run = "if grep -q BROKEN k/qkv.tk; then echo 'k/qkv.tk:1:1: error: broken kernel'; exit 1; fi; mkdir -p out && cp k/qkv.tk out/"
sandbox = false

[commands.static_cost]
run = "awk '/^cost/ {print \"makespan:\", $2}' out/qkv.tk"
sandbox = false
parse = { regex = 'makespan: ([0-9]+)' }
example = "makespan: 12"

[commands.check]
run = "if grep -q WRONG k/qkv.tk; then echo 'test qkv ... FAILED'; exit 101; fi"
sandbox = false

[commands.time]
run = "if [ \"$HEADWAY_JOB\" = \"$FAIL_JOB\" ]; then echo node lost; exit 9; fi; i=0; for a in {arms}; do echo \"arm $i: $(awk '/^speed/ {print $2}' $a/out/qkv.tk)\"; i=$((i+1)); done"
sandbox = false
env = { FAIL_JOB = "2" }
parse = { regex = 'arm ([0-9]+): ([0-9]+)' }
example = "arm 0: 5"
)";
}

class CommandTargetTest : public ::testing::Test {
 protected:
  void SetUp() override {
    fs::create_directories(dir_.path() / "repo/k");
    std::ofstream(dir_.path() / "repo/k/qkv.tk") << "speed 1000\ncost 100\n";
  }
  std::unique_ptr<CommandTarget> target(int budget_jobs = 0) {
    std::ofstream(dir_.path() / "target.toml") << manifest_text(budget_jobs);
    return std::make_unique<CommandTarget>((dir_.path() / "target.toml").string());
  }
  targets::Artifact built(CommandTarget& t, int speed, int cost) {
    auto b = t.build(fmt_source(speed, cost), dir_.path() / "cache");
    EXPECT_TRUE(b.built()) << b.diagnostics;
    return b.artifact;
  }
  static std::string fmt_source(int speed, int cost) {
    return "// headway-file: k/qkv.tk\nspeed " + std::to_string(speed) + "\ncost " +
           std::to_string(cost) + "\n";
  }
  const KernelContract& qkv() { return *builtin_kernel("qkv"); }
  store::TestTempDir dir_;
};

TEST_F(CommandTargetTest, IdentifiesTheToolchainAndRejectsABadManifest) {
  auto t = target();
  ASSERT_TRUE(t->identity().found) << t->identity().error;
  EXPECT_EQ(t->identity().id, "command:toy:1.0");
  EXPECT_EQ(t->identity().version, "toy 1.0");
  CommandTarget none("");
  EXPECT_FALSE(none.identity().found);
  std::ofstream(dir_.path() / "bad.toml") << "name = \"x\"\nrepo = 3\n";
  CommandTarget bad((dir_.path() / "bad.toml").string());
  EXPECT_FALSE(bad.identity().found);
  EXPECT_EQ(bad.identity().error,
            (dir_.path() / "bad.toml").string() + ":2: 'repo' must be a string");
  EXPECT_EQ(bad.build("x", dir_.path()).status, targets::BuildOutcome::Status::kToolchainMissing);
}

TEST_F(CommandTargetTest, BuildsEachCandidateInItsOwnCopyWithItsStaticCost) {
  auto t = target();
  const auto a = built(*t, 900, 90);
  const auto b = built(*t, 800, 80);
  EXPECT_NE(a.path, b.path);
  EXPECT_TRUE(fs::exists(a.path / "out/qkv.tk"));
  EXPECT_EQ(*t->static_cost(a), 90);
  EXPECT_EQ(*t->static_cost(b), 80);
  auto again = t->build(fmt_source(900, 90), dir_.path() / "cache");
  EXPECT_TRUE(again.cached);
  EXPECT_EQ(again.artifact.id, a.id);
  // The user's repository is never written.
  std::ifstream in(dir_.path() / "repo/k/qkv.tk");
  std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  EXPECT_EQ(text, "speed 1000\ncost 100\n");
}

TEST_F(CommandTargetTest, CompileErrorsAndFilesOutsideTheEditableOnes) {
  auto t = target();
  const auto broken = t->build("// headway-file: k/qkv.tk\nBROKEN\n", dir_.path() / "cache");
  EXPECT_EQ(broken.status, targets::BuildOutcome::Status::kCompileError);
  EXPECT_EQ(t->normalize_diagnostic(broken.diagnostics).line, "error: broken kernel");
  const auto outside = t->build("// headway-file: Makefile\nall:\n", dir_.path() / "cache");
  EXPECT_EQ(outside.status, targets::BuildOutcome::Status::kCompileError);
  EXPECT_NE(outside.diagnostics.find("rejected before the build: the candidate changes Makefile"),
            std::string::npos)
      << outside.diagnostics;
}

TEST_F(CommandTargetTest, TheCheckCommandIsTheOracle) {
  auto t = target();
  EXPECT_TRUE(t->check(qkv(), built(*t, 900, 90), {7, {}}).correct());
  auto wrong = t->build("// headway-file: k/qkv.tk\nspeed 1\nWRONG\n", dir_.path() / "cache");
  ASSERT_TRUE(wrong.built());
  const auto c = t->check(qkv(), wrong.artifact, {7, {}});
  EXPECT_EQ(c.status, targets::CheckOutcome::Status::kIncorrect);
  EXPECT_EQ(c.description,
            "the check command exited with status 101 (seed 7): test qkv ... FAILED");
}

TEST_F(CommandTargetTest, OneJobRunsEveryArmOfASessionAndAFailedJobIsRetried) {
  auto t = target();
  const auto a = built(*t, 900, 90), b = built(*t, 800, 80), c = built(*t, 700, 70);
  auto s = t->start_session(qkv(), {a, b, c}, 1);
  ASSERT_TRUE(s.ok()) << s.error().message;
  EXPECT_DOUBLE_EQ(s.value()->reading(1).value(), 800e-9);
  EXPECT_DOUBLE_EQ(s.value()->reading(0).value(), 900e-9);
  EXPECT_DOUBLE_EQ(s.value()->reading(2).value(), 700e-9);
  EXPECT_EQ(t->jobs()->stats().jobs, 1);
  // The second job is "node lost" (FAIL_JOB = 2): retried, not scored.
  EXPECT_DOUBLE_EQ(s.value()->reading(2).value(), 700e-9);
  EXPECT_EQ(t->jobs()->stats().jobs, 3);
  EXPECT_EQ(t->jobs()->stats().retried, 1);
  std::ifstream log(dir_.path() / "cache/command/jobs.log");
  std::string all((std::istreambuf_iterator<char>(log)), std::istreambuf_iterator<char>());
  EXPECT_NE(all.find("\"outcome\":\"retried\""), std::string::npos) << all;
}

class Collect final : public statistics::ReadingSink {
 public:
  void record(const statistics::Reading& r) override { readings.push_back(r); }
  std::vector<statistics::Reading> readings;
};

TEST_F(CommandTargetTest, PairsRunInsideOneJobInTheCoinsOrder) {
  auto t = target();
  const auto head = built(*t, 1000, 100), cand = built(*t, 500, 50);
  auto device = t->paired_device(qkv(), head, cand, 3);
  ASSERT_TRUE(device.ok());
  // Warm-up readings of the head alone (as estimate_s0 takes them): jobs 1, 2 (lost, run again
  // as 3) and 4. Their leftover candidate readings never enter a pair.
  nlohmann::json clock;
  for (int i = 0; i < 3; ++i)
    EXPECT_DOUBLE_EQ(device.value()->run_once(statistics::Arm::kHead, &clock), 1000e-9);
  Rng coin(11);
  Collect sink;
  for (int i = 0; i < 4; ++i) {
    const auto p = statistics::run_pair(*device.value(), coin, {"qkv", "2", 1, i}, sink);
    EXPECT_NEAR(p.d, std::log(0.5), 1e-12);
  }
  // Four pairs, one job each, after the four warm-up attempts.
  EXPECT_EQ(t->jobs()->stats().jobs, 8);
  EXPECT_EQ(t->jobs()->stats().retried, 1);
  ASSERT_EQ(sink.readings.size(), 8u);
  for (size_t k = 0; k < 8; k += 2) {
    EXPECT_EQ(sink.readings[k].clock["job"], sink.readings[k + 1].clock["job"]) << "pair " << k / 2;
    EXPECT_EQ(sink.readings[k].clock["position"], 0);
    EXPECT_EQ(sink.readings[k + 1].clock["position"], 1);
  }
  EXPECT_EQ(sink.readings[0].clock["job"], 5);
}

TEST_F(CommandTargetTest, TheJobBudgetRunsOut) {
  auto t = target(3);
  const auto a = built(*t, 900, 90), b = built(*t, 800, 80);
  auto s = t->start_session(qkv(), {a, b}, 1);
  ASSERT_TRUE(s.ok());
  EXPECT_TRUE(s.value()->reading(0).ok());  // job 1
  EXPECT_TRUE(s.value()->reading(0).ok());  // job 2 (node lost) and 3
  try {
    (void)s.value()->reading(0);
    FAIL() << "a fourth job ran past a budget of 3";
  } catch (const targets::DeviceStopped& e) {
    EXPECT_EQ(std::string(e.what()).rfind("the device budget is spent: 3 of 3 jobs", 0), 0u)
        << e.what();
  }
  const auto timings = t->time_side_by_side(qkv(), {a}, 2, 1);
  EXPECT_NE(timings[0].failure.find("budget is spent"), std::string::npos);
  // Selecting the same manifest again (as optimize does before its final timings) keeps the
  // jobs counted.
  ASSERT_TRUE(t->select_toolchain(t->toolchain()).found);
  EXPECT_NE(t->time_side_by_side(qkv(), {a}, 2, 1)[0].failure.find("budget is spent"),
            std::string::npos);
  EXPECT_EQ(t->jobs()->stats().jobs, 3);
}

TEST_F(CommandTargetTest, FloorsFromTheManifestsBandwidthAndBytes) {
  auto t = target();
  const auto facts = t->measure_facts({});
  ASSERT_EQ(facts.size(), 1u);
  EXPECT_EQ(facts[0].name, targets::kReadBandwidth);
  EXPECT_DOUBLE_EQ(t->floors(qkv(), {{targets::kReadBandwidth, 1000.0}}).memory_ms,
                   2e6 / 1e12 * 1e3);
  EXPECT_EQ(t->baseline_source(qkv()),
            "// headway-kernel: qkv\n// headway-file: k/qkv.tk\nspeed 1000\ncost 100\n");
}

TEST_F(CommandTargetTest, AKernelOfTheManifestsSpecIsKnownWithTheSpecsContract) {
  std::ofstream(dir_.path() / "repo/k/kv.tk") << "speed 10\n";
  const fs::path spec = fs::path(HEADWAY_SOURCE_DIR) / "kernels/specs/kv_append/kv_append.toml";
  std::string text = manifest_text(0);
  text.replace(text.find("[commands.toolchain_version]"), 0,
               "[kernels.kv_append]\nfile = \"k/kv.tk\"\nspec = \"" + spec.string() + "\"\n\n");
  std::ofstream(dir_.path() / "target.toml") << text;
  CommandTarget t((dir_.path() / "target.toml").string());
  ASSERT_TRUE(t.identity().found) << t.identity().error;
  const auto declared = t.declared_kernels();
  ASSERT_EQ(declared.size(), 1u);
  const KernelContract* kernel = declared.front().get();
  ASSERT_NE(kernel->spec(), nullptr);
  EXPECT_EQ(kernel->spec()->file, spec);
  EXPECT_EQ(kernel->bytes_to_move(), 512u + 4u + 512u);
  // A verb's catalog holds it once added; the target's kernels are the same contracts.
  KernelCatalog catalog;
  ASSERT_TRUE(catalog.add(declared.front()));
  EXPECT_EQ(catalog.find_kernel("kv_append"), kernel);
  EXPECT_EQ(t.kernels(catalog),
            (std::vector<const KernelContract*>{builtin_kernel("qkv"), kernel}));
}

TEST(CommandDiagnostics, RustcStyleErrorsAreRuleSignatures) {
  const std::string d =
      "   Compiling x\nerror[E0277]: vector width 128 exceeds the 64-lane datapath\n --> "
      "k/qkv.tk:7:8\n";
  CommandTarget t("");
  EXPECT_EQ(t.normalize_diagnostic(d).line,
            "error[E0277]: vector width 128 exceeds the 64-lane datapath");
  EXPECT_EQ(t.normalize_diagnostic(d).signature,
            "error[E0277]: vector width <n> exceeds the <n>-lane datapath");
}

TEST_F(CommandTargetTest, CalibrationDecisionsAreAOnTheKernelsBaselineAgainstItself) {
  auto t = target();
  statistics::CalibrateRequest request;
  request.target = "command";
  request.effect_pct = 3.0;
  EXPECT_THROW(t->calibration_devices(request), std::runtime_error) << "no known effect";
  request.effect_pct = 0.0;
  request.kernel = "attn_out";
  EXPECT_THROW(t->calibration_devices(request), std::runtime_error) << "not the pack's kernel";
  request.kernel = "";
  const auto devices = t->calibration_devices(request);
  auto device = devices(0);
  nlohmann::json clock;
  const double head = device->run_once(statistics::Arm::kHead, &clock);
  EXPECT_DOUBLE_EQ(device->run_once(statistics::Arm::kCandidate, &clock), head)
      << "the same build on both arms of the pair";
  EXPECT_DOUBLE_EQ(head, 1000e-9) << "the repository's own kernel";
}

// The target's device work on a pool of two workers (child processes here, Slurm in
// src/pool/slurm_pool_test.cc): pairs and race jobs run one a device at once.
class CommandTargetOnAPoolTest : public CommandTargetTest {
 protected:
  std::shared_ptr<pool::DevicePool> two_workers() {
    auto started = pool::testing::start_process_pool(processes_, 2, dir_.path() / "pool");
    if (!started) throw std::runtime_error(started.error().message);
    return *started;
  }
  std::shared_ptr<pool::testing::Processes> processes_ =
      std::make_shared<pool::testing::Processes>();
};

TEST_F(CommandTargetOnAPoolTest, PairsRunOneADeviceAtOnceAndTheTestTakesThemInOrder) {
  auto t = target();
  const auto devices = two_workers();
  t->use_pool(devices);
  const auto head = built(*t, 1000, 100), cand = built(*t, 500, 50);
  auto device = t->paired_device(qkv(), head, cand, 3);
  ASSERT_TRUE(device.ok());
  EXPECT_EQ(device.value()->pairs_at_once(), 2);
  statistics::BettingConfig b;
  b.s0 = 0.05;
  statistics::BettingRule rule(b);
  Rng coin(5);
  Collect sink;
  const auto record =
      statistics::run_decision(*device.value(), rule, coin, {"qkv", "2", 1, 0}, sink);
  EXPECT_EQ(record.outcome, statistics::Outcome::kFaster);
  for (double d : record.d) EXPECT_NEAR(d, std::log(0.5), 1e-12);
  // Every job ran on a worker (job 2 was lost to "node lost" and run again), both took some.
  const auto jobs = t->jobs()->stats();
  EXPECT_EQ(devices->stats().jobs, jobs.jobs);
  EXPECT_EQ(jobs.retried, 1);
  for (const auto& w : devices->workers()) EXPECT_GT(w.jobs, 0) << w.name;
  // Pairs were prepared two at a time: at most one ran past the decision.
  EXPECT_LE(jobs.jobs - jobs.retried, static_cast<int64_t>(record.d.size()) + 1);
}

TEST_F(CommandTargetOnAPoolTest, ARaceRunsAJobOfItsArmsOnEachDeviceAtOnce) {
  auto t = target();
  t->use_pool(two_workers());
  const auto a = built(*t, 900, 90), b = built(*t, 800, 80), c = built(*t, 700, 70);
  auto s = t->start_session(qkv(), {a, b, c}, 1);
  ASSERT_TRUE(s.ok()) << s.error().message;
  EXPECT_DOUBLE_EQ(s.value()->reading(1).value(), 800e-9);
  const int64_t after_one = t->jobs()->stats().jobs - t->jobs()->stats().retried;
  EXPECT_EQ(after_one, 2) << "one job on each device";
  // Each arm has a second reading waiting: no job runs for these.
  EXPECT_DOUBLE_EQ(s.value()->reading(1).value(), 800e-9);
  EXPECT_DOUBLE_EQ(s.value()->reading(0).value(), 900e-9);
  EXPECT_DOUBLE_EQ(s.value()->reading(0).value(), 900e-9);
  EXPECT_DOUBLE_EQ(s.value()->reading(2).value(), 700e-9);
  EXPECT_EQ(t->jobs()->stats().jobs - t->jobs()->stats().retried, after_one);
}

TEST_F(CommandTargetOnAPoolTest, TheCheckCommandRunsOnAWorkerAndSeesItsDevice) {
  std::ofstream(dir_.path() / "target.toml") << [&] {
    std::string text = manifest_text(0);
    const std::string from = "run = \"if grep -q WRONG k/qkv.tk;";
    text.replace(text.find(from), from.size(),
                 "run = \"echo \\\"on $HEADWAY_DEVICE\\\"; if grep -q WRONG k/qkv.tk;");
    return text;
  }();
  auto t = std::make_unique<CommandTarget>((dir_.path() / "target.toml").string());
  t->use_pool(two_workers());
  const auto c = t->check(qkv(), built(*t, 900, 90), {7, {}});
  EXPECT_TRUE(c.correct()) << c.description;
  EXPECT_NE(c.details["output"].get<std::string>().find("on w"), std::string::npos)
      << c.details.dump();
}

}  // namespace
}  // namespace headway::command
