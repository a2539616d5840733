// The candidate pool's placement (include/headway/headway_rows.h, Pool's place_away): a small
// program built against the real candidate headers posts jobs and reports, per job, the CPU the
// caller was on when it posted and the CPU each worker ran its share on.
#include <gtest/gtest.h>
#include <sched.h>

#include <filesystem>
#include <fstream>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include "common/subprocess.h"
#include "store/test_temp_dir.h"

namespace headway::cpu {
namespace {

namespace fs = std::filesystem;

// Posts 200 jobs to a pool of `threads` with place_away set as given and prints "caller C worker
// W ..." per job, then "done". Every 50 jobs the pool is put in its worst place: in the job before,
// worker 1 pins itself to the CPU it runs on, and the caller then moves to that CPU, so a pool
// that does not place its workers would run worker 1 beside the caller from then on.
constexpr const char* kProgram = R"(
#include <cstdio>
#include <cstdlib>
#include <sched.h>
#include "headway_rows.h"
static int cpus[64];
static bool pin_worker = false;
static void record(void*, int tid) {
  cpus[tid] = sched_getcpu();
  if (tid == 1 && pin_worker) {
    cpu_set_t here;
    CPU_ZERO(&here);
    CPU_SET(cpus[tid], &here);
    sched_setaffinity(0, sizeof here, &here);  // this thread only
  }
}
int main(int argc, char** argv) {
  if (argc != 3) return 2;
  const int threads = std::atoi(argv[1]);
  const bool place_away = std::atoi(argv[2]) != 0;
  cpu_set_t allowed;
  sched_getaffinity(0, sizeof allowed, &allowed);
  hw::Pool& p = *new hw::Pool(threads, 0, place_away);  // never destroyed, as hw::pool's
  for (int job = 0; job < 200; ++job) {
    if (job % 50 == 0 && job > 0 && p.threads() > 1) {  // the caller joins worker 1
      cpu_set_t one;
      CPU_ZERO(&one);
      CPU_SET(cpus[1], &one);
      sched_setaffinity(0, sizeof one, &one);
      sched_setaffinity(0, sizeof allowed, &allowed);  // it may stay where it is
    }
    pin_worker = job % 50 == 49;
    const int caller = sched_getcpu();
    p.run(record, nullptr);
    std::printf("caller %d", caller);
    for (int t = 1; t < p.threads(); ++t) std::printf(" worker %d", cpus[t]);
    std::printf("\n");
  }
  std::printf("done\n");
}
)";

struct Job {
  int caller = -1;
  std::vector<int> workers;
};

class PoolPlacement : public ::testing::Test {
 protected:
  // The program, built once for the suite against the candidate headers.
  static void SetUpTestSuite() {
    dir_ = new store::TestTempDir;
    const fs::path dir = dir_->path();
    const fs::path include = fs::path(HEADWAY_SOURCE_DIR) / "include/headway";
    std::ofstream(dir / "pool.cc") << kProgram;
    const ProcessResult built =
        run_process({"g++", "-std=c++20", "-O2", "-pthread", "-I", include.string(),
                     (dir / "pool.cc").string(), "-o", (dir / "pool").string()},
                    300.0);
    EXPECT_TRUE(built.ok()) << built.output;
  }
  static void TearDownTestSuite() {
    delete dir_;
    dir_ = nullptr;
  }

  // Runs the program (under `taskset -c prefix` when given); the jobs it printed.
  static std::vector<Job> run(int threads, bool place_away, const std::string& prefix = "") {
    const fs::path program = dir_->path() / "pool";
    std::vector<std::string> argv;
    if (!prefix.empty()) argv = {"taskset", "-c", prefix};
    argv.insert(argv.end(),
                {program.string(), std::to_string(threads), std::to_string(place_away ? 1 : 0)});
    const ProcessResult ran = run_process(argv, 60.0);
    EXPECT_TRUE(ran.ok()) << ran.output;
    std::vector<Job> jobs;
    std::istringstream lines(ran.output);
    bool done = false;
    for (std::string line; std::getline(lines, line);) {
      if (line == "done") {
        done = true;
        continue;
      }
      std::istringstream words(line);
      std::string word;
      Job job;
      words >> word >> job.caller;
      for (int cpu; words >> word >> cpu;) job.workers.push_back(cpu);
      jobs.push_back(job);
    }
    EXPECT_TRUE(done) << ran.output;
    return jobs;
  }

  static store::TestTempDir* dir_;
};
store::TestTempDir* PoolPlacement::dir_ = nullptr;

int cpus_of_this_process() {
  cpu_set_t allowed;
  return sched_getaffinity(0, sizeof allowed, &allowed) == 0 ? CPU_COUNT(&allowed) : 1;
}

// Every worker's share of every job runs off the CPU the caller posted the job from, also after
// the caller has moved onto a worker's CPU (and that worker was pinned there).
TEST_F(PoolPlacement, WorkersRunOffTheCallersCpu) {
  if (cpus_of_this_process() < 2) GTEST_SKIP() << "needs two CPUs";
  for (const int threads : {2, 3}) {
    const std::vector<Job> jobs = run(threads, true);
    ASSERT_EQ(jobs.size(), 200u);
    std::set<int> callers;
    int beside = 0;
    for (const Job& job : jobs) {
      callers.insert(job.caller);
      ASSERT_EQ(job.workers.size(), static_cast<size_t>(threads - 1));
      for (const int w : job.workers) beside += w == job.caller;
    }
    EXPECT_EQ(beside, 0) << "worker shares run on the caller's CPU, threads " << threads;
    EXPECT_GE(callers.size(), 2u) << "the caller never moved: the test shows nothing";
  }
}

// The program's worst place bites a pool that does not place its workers: worker 1, pinned to
// the caller's new CPU, runs its share there.
TEST_F(PoolPlacement, WithoutPlacementAPinnedWorkerRunsBesideTheCaller) {
  if (cpus_of_this_process() < 2) GTEST_SKIP() << "needs two CPUs";
  const std::vector<Job> jobs = run(2, false);
  ASSERT_EQ(jobs.size(), 200u);
  int beside = 0;
  for (const size_t job : {50u, 100u, 150u}) beside += jobs[job].workers.at(0) == jobs[job].caller;
  EXPECT_GE(beside, 1);
}

// A process with one CPU has nowhere else to put a worker: the pool still runs every job.
TEST_F(PoolPlacement, OnOneCpuEveryJobStillRuns) {
  const std::vector<Job> jobs = run(2, true, "0");
  ASSERT_EQ(jobs.size(), 200u);
  for (const Job& job : jobs) {
    EXPECT_EQ(job.caller, 0);
    ASSERT_EQ(job.workers.size(), 1u);
    EXPECT_EQ(job.workers[0], 0);
  }
}

}  // namespace
}  // namespace headway::cpu
