// A study's runs as real `headway` processes on the sim target.
#include "ablate/study_runner.h"

#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <mutex>
#include <thread>

#include "ablate/study_summary.h"
#include "common/file_io.h"
#include "store/test_temp_dir.h"

namespace headway::ablate {
namespace {

StudySpec small_sim_study() {
  StudySpec spec;
  spec.target = "sim";
  spec.kernels = "qkv";
  spec.budget = "60s";
  spec.runs = 2;
  spec.arms = {"full", "without-racing"};
  return spec;
}

RunnerOptions runner(std::vector<std::string>* lines, std::mutex* mutex) {
  RunnerOptions o;
  o.headway = HEADWAY_BINARY;
  o.jobs = 2;
  o.log = [lines, mutex](const std::string& line) {
    std::lock_guard lock(*mutex);
    lines->push_back(line);
  };
  return o;
}

TEST(AblateRunner, RunsEveryArmsRunsOnceWithItsOptionsAndSeed) {
  store::TestTempDir tmp;
  const Study study = Study::create_or_open(tmp.path() / "s", small_sim_study()).value();
  // A run an earlier, killed call left half done is run again from an empty folder.
  write_file_creating_folders(study.run_dir("full", 1) / "leftover", "x");
  std::vector<std::string> lines;
  std::mutex mutex;
  const RunnerReport report = run_pending(study, runner(&lines, &mutex));
  ASSERT_TRUE(report.failures.empty()) << report.failures.front();
  EXPECT_EQ(report.ran, 4);
  EXPECT_TRUE(study.pending().empty());
  EXPECT_FALSE(std::filesystem::exists(study.run_dir("full", 1) / "leftover"));
  EXPECT_EQ(lines.size(), 8u) << "a line as each run starts and one as it ends";
  for (int run = 0; run < 2; ++run) {
    const auto full = study.result("full", run).value();
    const auto off = study.result("without-racing", run).value();
    EXPECT_EQ(full["switched_off"], "");
    EXPECT_EQ(off["switched_off"], "racing");
    EXPECT_EQ(full["seed"], study.run_seed(run));
    EXPECT_EQ(off["seed"], study.run_seed(run)) << "the arms share each run's seed";
    EXPECT_TRUE(std::filesystem::exists(study.run_dir("full", run) / "optimize.log"));
    // What the landscape makes matter: without racing, every survivor takes a test.
    EXPECT_GT(off["tests"].get<int>(), full["tests"].get<int>());
  }
  const auto arms = summarize(study);
  EXPECT_GT(*arms[1].figures.at("tests").difference, 0.0);
  EXPECT_EQ(run_pending(study, runner(&lines, &mutex)).ran, 0) << "nothing left to run";
}

// What the sim landscape makes matter moves the result: its cost model thinks the tuned design's
// best prefetch and tile slower, so the full loop's static-cost screen keeps them out of the race
// and the loop without it ends closer to the floor.
TEST(AblateRunner, WithoutTheStaticCostScreenTheSimLoopEndsCloserToTheFloor) {
  store::TestTempDir tmp;
  StudySpec spec = small_sim_study();
  spec.arms = {"full", "without-static-cost-screen"};
  spec.runs = 3;
  const Study study = Study::create_or_open(tmp.path() / "s", spec).value();
  std::vector<std::string> lines;
  std::mutex mutex;
  const RunnerReport report = run_pending(study, runner(&lines, &mutex));
  ASSERT_TRUE(report.failures.empty()) << report.failures.front();
  for (int run = 0; run < spec.runs; ++run) {
    EXPECT_GT(study.result("full", run).value()["not_raced_by_static_cost"].get<int>(), 0);
    EXPECT_EQ(study.result("without-static-cost-screen", run).value()["not_raced_by_static_cost"],
              0);
  }
  const auto arms = summarize(study);
  EXPECT_LT(arms[1].figures.at("ratio_to_floor").median,
            arms[0].figures.at("ratio_to_floor").median);
  EXPECT_LT(*arms[1].figures.at("ratio_to_floor").difference, 0.0);
}

TEST(AblateRunner, AFailedRunIsReportedAndLeavesNoResult) {
  store::TestTempDir tmp;
  StudySpec spec = small_sim_study();
  spec.arms = {"full"};
  spec.runs = 1;
  spec.kernels = "no_such_kernel";
  const Study study = Study::create_or_open(tmp.path() / "s", spec).value();
  std::vector<std::string> lines;
  std::mutex mutex;
  const RunnerReport report = run_pending(study, runner(&lines, &mutex));
  EXPECT_EQ(report.ran, 0);
  ASSERT_EQ(report.failures.size(), 1u);
  EXPECT_NE(report.failures[0].find("full run 0: headway optimize failed (exit 2)"),
            std::string::npos)
      << report.failures[0];
  EXPECT_FALSE(study.result("full", 0));
  EXPECT_NE(
      read_file(study.run_dir("full", 0) / "optimize.log").value_or("").find("no_such_kernel"),
      std::string::npos);
  RunnerOptions missing = runner(&lines, &mutex);
  missing.headway = tmp.path() / "no-headway-here";
  EXPECT_EQ(run_pending(study, missing).failures.size(), 1u);
}

// The study's optimize options, and the runner's (the study pool's address), reach every run's
// optimize: here values that each run's optimize refuses.
TEST(AblateRunner, TheStudysOptimizeArgsReachEveryRun) {
  store::TestTempDir tmp;
  StudySpec spec = small_sim_study();
  spec.arms = {"full", "without-racing"};
  spec.runs = 1;
  spec.optimize_args = {"--confirm-calls", "cloud"};
  const Study study = Study::create_or_open(tmp.path() / "s", spec).value();
  std::vector<std::string> lines;
  std::mutex mutex;
  const RunnerReport report = run_pending(study, runner(&lines, &mutex));
  EXPECT_EQ(report.ran, 0);
  ASSERT_EQ(report.failures.size(), 2u);
  for (const char* arm : {"full", "without-racing"}) {
    const std::string log = read_file(study.run_dir(arm, 0) / "optimize.log").value_or("");
    EXPECT_NE(log.find("--confirm-calls"), std::string::npos) << arm << ": " << log;
    EXPECT_NE(log.find("cloud"), std::string::npos) << arm << ": " << log;
  }
  spec.optimize_args = {};
  const Study other = Study::create_or_open(tmp.path() / "t", spec).value();
  RunnerOptions pooled = runner(&lines, &mutex);
  pooled.optimize_args = {"--pool", "study", "--pool-broker", "127.0.0.1:1"};
  EXPECT_EQ(run_pending(other, pooled).failures.size(), 2u);
  const std::string log = read_file(other.run_dir("full", 0) / "optimize.log").value_or("");
  EXPECT_NE(log.find("--pool-token-file"), std::string::npos) << log;
}

// Cancelling stops the runs in flight (here a stand-in for headway whose optimize takes long) and
// starts no other; none keeps a result.
TEST(AblateRunner, CancellingStopsTheRunsInFlightAndStartsNoMore) {
  store::TestTempDir tmp;
  const auto slow = tmp.path() / "slow-headway";
  write_file(slow, "#!/bin/sh\n[ \"$1\" = init ] && exec mkdir -p \"$2\"\nexec sleep 60\n");
  std::filesystem::permissions(slow, std::filesystem::perms::owner_all);
  StudySpec spec = small_sim_study();
  spec.runs = 3;
  const Study study = Study::create_or_open(tmp.path() / "s", spec).value();
  std::vector<std::string> lines;
  std::mutex mutex;
  RunnerOptions options = runner(&lines, &mutex);
  options.headway = slow;
  std::atomic<bool> cancel{false};
  options.cancel = &cancel;
  std::thread canceller([&] {
    std::this_thread::sleep_for(std::chrono::milliseconds(500));
    cancel = true;
  });
  const auto start = std::chrono::steady_clock::now();
  const RunnerReport report = run_pending(study, options);
  canceller.join();
  EXPECT_LT(std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count(), 5.0);
  EXPECT_EQ(report.stopped, 2) << "the two in flight";
  EXPECT_EQ(report.ran, 0);
  EXPECT_TRUE(report.failures.empty());
  EXPECT_EQ(study.pending().size(), 6u);
  EXPECT_FALSE(std::filesystem::exists(study.run_dir("full", 1))) << "never started";
}

}  // namespace
}  // namespace headway::ablate
