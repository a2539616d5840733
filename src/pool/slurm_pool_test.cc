// The worker pool on a real Slurm cluster on this machine (slurm_cluster_test_support.h): workers
// as sbatch allocations on nodes dev1..dev4, and the faults a cluster has.
#include <gtest/gtest.h>
#include <signal.h>

#include <fstream>
#include <nlohmann/json.hpp>
#include <set>
#include <thread>

#include "common/subprocess.h"
#include "pool/slurm_cluster_test_support.h"
#include "pool/slurm_launcher.h"
#include "pool/worker_pool.h"

namespace headway::pool {
namespace {

namespace fs = std::filesystem;
using testing::SlurmCluster;

TEST(SlurmLauncher, OneAllocationAWorkerWithTheUsersOptionsAndNoRequeue) {
  SlurmOptions o;
  o.partition = "gpu";
  o.account = "lab";
  o.gres = "gpu:1";
  o.exclusive = true;
  o.time_limit = "4:00:00";
  o.folder = "/shared/ws/.headway/pool";
  o.extra_arguments = {"--qos=short"};
  const auto argv = SlurmLauncher(o).sbatch_argv("w3", "/shared/ws/.headway/pool/w3.sh");
  const std::vector<std::string> expected = {"sbatch",
                                             "--parsable",
                                             "--job-name=headway-w3",
                                             "--nodes=1",
                                             "--ntasks=1",
                                             "--no-requeue",
                                             "--output=/shared/ws/.headway/pool/w3-%j.log",
                                             "--partition=gpu",
                                             "--account=lab",
                                             "--gres=gpu:1",
                                             "--exclusive",
                                             "--time=4:00:00",
                                             "--qos=short",
                                             "/shared/ws/.headway/pool/w3.sh"};
  EXPECT_EQ(argv, expected);
}

TEST(SlurmLauncher, ASbatchThatFailsIsAnEnvironmentErrorWithItsMessage) {
  SlurmOptions o;
  o.partition = "no-such-partition";
  o.folder = fs::temp_directory_path() / ("headway-sbatch-" + std::to_string(getpid()));
  // A configuration sbatch cannot read: it fails at once (a missing one has it look for a
  // controller in DNS for a minute first).
  fs::create_directories(o.folder);
  std::ofstream(o.folder / "slurm.conf") << "NotASlurmKey=1\n";
  setenv("SLURM_CONF", (o.folder / "slurm.conf").c_str(), 1);
  const auto started = SlurmLauncher(o).start({"true"}, "w1");
  unsetenv("SLURM_CONF");
  fs::remove_all(o.folder);
  ASSERT_FALSE(started);
  EXPECT_EQ(started.error().code, ErrorCode::kEnvironment);
  EXPECT_EQ(started.error().message.rfind("sbatch failed for worker w1: ", 0), 0u)
      << started.error().message;
}

TEST(SlurmLauncher, ElapsedTimesReadAsSqueuePrintsThem) {
  EXPECT_EQ(parse_slurm_elapsed("0:07"), 7.0);
  EXPECT_EQ(parse_slurm_elapsed("12:34"), 754.0);
  EXPECT_EQ(parse_slurm_elapsed("1:02:03"), 3723.0);
  EXPECT_EQ(parse_slurm_elapsed("2-01:00:00"), 2 * 86400 + 3600.0);
  for (const char* bad :
       {"", "INVALID", "UNLIMITED", "7", "1:2:3:4", "1-", "-1:00", "a:00", "1::00", "0:07 "}) {
    EXPECT_FALSE(parse_slurm_elapsed(bad)) << bad;
  }
}

class SlurmPoolTest : public ::testing::Test {
 protected:
  void SetUp() override {
    if (const std::string why = SlurmCluster::unavailable_reason(); !why.empty()) {
      GTEST_SKIP() << why;
    }
    cluster_ = std::make_unique<SlurmCluster>(4);
  }
  void TearDown() override {
    pool_.reset();
    cluster_.reset();
  }
  WorkerPool& start(int workers) {
    SlurmOptions slurm;
    slurm.partition = "dev";
    slurm.folder = cluster_->folder() / "pool";
    WorkerPoolOptions o;
    o.workers = workers;
    o.advertise_host = "127.0.0.1";
    o.folder = cluster_->folder() / "pool";
    o.headway_binary = HEADWAY_BINARY;
    o.ping_seconds = 1;
    o.poll_seconds = 0.5;
    o.lease_seconds = 20;
    auto p = WorkerPool::start(std::make_unique<SlurmLauncher>(slurm), o);
    if (!p) throw std::runtime_error(p.error().message);
    pool_ = std::move(*p);
    EXPECT_TRUE(pool_->wait_for_workers(workers, 60)) << events();
    return *pool_;
  }
  PoolJob shell(const std::string& script, double timeout = 60) const {
    PoolJob job;
    job.label = "test";
    job.argv = {"sh", "-c", script};
    job.cwd = cluster_->folder().string();
    job.timeout_seconds = timeout;
    return job;
  }
  std::string events() const {
    std::string out;
    if (pool_) {
      for (const auto& e : pool_->events()) out += e + "\n";
    }
    return out;
  }
  // The Slurm job of the worker running a job now.
  std::string busy_worker_job() const {
    for (const auto& w : pool_->workers()) {
      if (w.jobs == 0 && w.state == "running" && fs::exists(cluster_->folder() / ("at-" + w.name)))
        return w.launch_id;
    }
    return "";
  }
  std::unique_ptr<SlurmCluster> cluster_;
  std::unique_ptr<WorkerPool> pool_;
};

TEST_F(SlurmPoolTest, FourWorkersRunJobsAtOnceOnFourNodes) {
  WorkerPool& pool = start(4);
  fs::create_directories(cluster_->folder() / "barrier");
  const PoolJob job = shell(
      "touch barrier/$$; n=0; while [ $(ls barrier | wc -l) -lt 4 ]; do sleep 0.02; "
      "n=$((n+1)); [ $n -gt 1500 ] && exit 9; done; echo $HEADWAY_DEVICE");
  std::vector<PoolJobResult> results(4);
  std::vector<std::thread> callers;
  for (int i = 0; i < 4; ++i) callers.emplace_back([&, i] { results[i] = pool.run(job); });
  for (auto& t : callers) t.join();
  std::set<std::string> nodes;
  for (const auto& r : results) {
    ASSERT_TRUE(r.process.ok()) << r.process.output << events();
    nodes.insert(r.process.output.substr(r.process.output.find('@') + 1));
  }
  EXPECT_EQ(nodes, (std::set<std::string>{"dev1\n", "dev2\n", "dev3\n", "dev4\n"}));
  for (const auto& w : pool.workers()) EXPECT_EQ(w.node.substr(0, 3), "dev");
  // The scheduler's count of what the workers held comes with the pool's polls of squeue.
  for (int i = 0; i < 100 && pool.stats().scheduler_seconds < 4; ++i)
    std::this_thread::sleep_for(std::chrono::milliseconds(100));
  EXPECT_GE(pool.stats().scheduler_seconds, 4) << "each of 4 workers held its node a second";
  EXPECT_LE(pool.stats().scheduler_seconds, pool.stats().device_seconds + 4 * 15)
      << "Slurm counts from the allocation, a little before the worker connects";
  pool_.reset();
  EXPECT_TRUE(cluster_->queue_empties_within(20)) << "every worker leaves after the goodbye";
}

// Starts a job that marks its worker (at-wN), waits until a worker has it, does `fault` to that
// worker, and expects the job to finish once, elsewhere.
void expect_job_survives(SlurmPoolTest* test, WorkerPool& pool, const std::string& folder,
                         const std::function<void(const std::string& job)>& fault,
                         const std::function<std::string()>& busy) {
  PoolJobResult result;
  std::thread caller([&] {
    result = pool.run([&] {
      PoolJob job;
      job.label = "marked";
      job.argv = {"sh", "-c",
                  "w=${HEADWAY_DEVICE%@*}; if [ ! -e once ]; then touch once at-$w; sleep 60; fi; "
                  "echo done"};
      job.cwd = folder;
      job.timeout_seconds = 120;
      return job;
    }());
  });
  std::string job;
  for (int i = 0; i < 300 && job.empty(); ++i) {
    std::this_thread::sleep_for(std::chrono::milliseconds(100));
    job = busy();
  }
  ASSERT_FALSE(job.empty()) << "no worker took the job";
  fault(job);
  caller.join();
  (void)test;
  EXPECT_EQ(result.process.output, "done\n");
  EXPECT_EQ(result.attempts, 2);
  EXPECT_EQ(pool.stats().jobs, 1) << "the lost run is never reported";
  EXPECT_EQ(pool.stats().workers_lost, 1);
}

TEST_F(SlurmPoolTest, AWorkerCancelledMidJobHasItsJobRunAgainAndIsReplaced) {
  WorkerPool& pool = start(2);
  expect_job_survives(
      this, pool, cluster_->folder().string(),
      [](const std::string& job) {
        (void)run_process({"scancel", job}, 30);
      },
      [this] { return busy_worker_job(); });
  EXPECT_EQ(pool.stats().workers_started, 3);
  EXPECT_TRUE(pool.wait_for_workers(2, 60)) << events();
  pool_.reset();
  EXPECT_TRUE(cluster_->queue_empties_within(20));
}

TEST_F(SlurmPoolTest, ANodeSetDownMidJobLosesItsWorkerNotTheJob) {
  WorkerPool& pool = start(2);
  expect_job_survives(
      this, pool, cluster_->folder().string(),
      [this](const std::string& job) { cluster_->set_node_down(cluster_->node_of(job)); },
      [this] { return busy_worker_job(); });
  pool_.reset();
  EXPECT_TRUE(cluster_->queue_empties_within(20));
}

TEST_F(SlurmPoolTest, AWorkerKilledWithSigkillHasItsJobRunAgain) {
  WorkerPool& pool = start(2);
  // The job's parent is the worker: the first run kills it.
  const PoolJobResult r = pool.run(
      shell("if [ ! -e first ]; then touch first; kill -9 $PPID; sleep 30; fi; echo second"));
  EXPECT_EQ(r.process.output, "second\n");
  EXPECT_EQ(r.attempts, 2);
  EXPECT_EQ(pool.stats().workers_lost, 1);
}

TEST_F(SlurmPoolTest, ARestartedControllerLosesNoWorkerAndNoJob) {
  WorkerPool& pool = start(2);
  ASSERT_TRUE(pool.run(shell("echo before")).process.ok());
  cluster_->restart_controller();
  std::this_thread::sleep_for(std::chrono::seconds(2));  // a few polls of the restarted one
  const PoolJobResult r = pool.run(shell("echo after"));
  EXPECT_EQ(r.process.output, "after\n");
  EXPECT_EQ(pool.stats().workers_lost, 0) << events();
  EXPECT_EQ(cluster_->queue().size(), 2u);
}

// A command pack in `dir` whose time command sleeps 0.2 s and whose kernel has no designs to try;
// returns its manifest.
fs::path write_sleepy_pack(const fs::path& dir) {
  fs::create_directories(dir / "repo/k");
  write_file(dir / "repo/k/qkv.tk", "speed 1000\n");
  write_file(dir / "pack.toml", R"(name = "sleepy"
repo = "repo"
editable = ["k/*.tk"]
[device]
read_gbps = 1000
time_unit = "ns"
[kernels.qkv]
file = "k/qkv.tk"
[commands.toolchain_version]
run = "echo sleepy 1.0"
sandbox = false
parse = { regex = 'sleepy ([0-9.]+)' }
example = "sleepy 1.0"
[commands.build]
run = "true"
sandbox = false
[commands.check]
run = "true"
sandbox = false
[commands.time]
run = "sleep 0.2; i=0; for a in {arms}; do echo \"arm $i: 1000\"; i=$((i+1)); done"
sandbox = false
parse = { regex = 'arm ([0-9]+): ([0-9]+)' }
example = "arm 0: 5"
)");
  return dir / "pack.toml";
}

TEST_F(SlurmPoolTest, AnOptimizeRecordsEachWorkersUseOverTimeForTheReport) {
  const fs::path dir = cluster_->folder();
  const fs::path manifest = write_sleepy_pack(dir), ws = dir / "ws";
  const auto headway = [&](std::vector<std::string> args) {
    args.insert(args.begin(),
                {"env", "HEADWAY_CACHE_DIR=" + (dir / "cache").string(), HEADWAY_BINARY});
    return run_process(args, 300);
  };
  ProcessResult r =
      headway({"init", ws.string(), "--target", "command", "--manifest", manifest.string()});
  ASSERT_TRUE(r.ok()) << r.output;
  r = headway({"optimize", "--workspace", ws.string(), "--budget", "5s", "--pool", "slurm",
               "--workers", "2", "--pool-host", "127.0.0.1"});
  ASSERT_TRUE(r.ok()) << r.output;
  r = headway({"report", "--workspace", ws.string(), "--format", "json"});
  ASSERT_TRUE(r.ok()) << r.output;
  const auto report = nlohmann::json::parse(r.output, nullptr, false);
  ASSERT_TRUE(report.is_object()) << r.output;
  ASSERT_EQ(report["pools"].size(), 1u) << r.output;
  const auto& pool = report["pools"][0];
  EXPECT_EQ(pool["kind"], "slurm");
  EXPECT_EQ(pool["devices"], 2);
  ASSERT_GE(pool["workers"].size(), 2u);
  int64_t jobs = 0;
  for (const auto& w : pool["workers"]) {
    jobs += w["jobs"].get<int64_t>();
    EXPECT_EQ(w["node"].get<std::string>().substr(0, 3), "dev") << w;
    double busy = 0, last_end = w["connected_s"].get<double>();
    for (const auto& span : w["busy"]) {
      EXPECT_GE(span[0].get<double>(), last_end) << w;
      last_end = span[1].get<double>();
      busy += span[1].get<double>() - span[0].get<double>();
    }
    EXPECT_LE(last_end, pool["elapsed_s"].get<double>()) << w;
    EXPECT_NEAR(busy, w["busy_seconds"].get<double>(), 1e-6);
    EXPECT_EQ(busy > 0, w["jobs"].get<int64_t>() > 0) << w;
  }
  EXPECT_GT(jobs, 0) << "the baseline was timed on the pool";
  EXPECT_GT(pool["busy_share"].get<double>(), 0.0);
}

TEST_F(SlurmPoolTest, WorkersOfARunKilledWithSigkillLeaveTheQueue) {
  // The run is `headway calibrate` on a pack whose time command sleeps: killed mid-run.
  const fs::path dir = cluster_->folder();
  write_sleepy_pack(dir);
  const std::string log = (dir / "run.log").string();
  const pid_t run = fork();
  if (run == 0) {
    setenv("HEADWAY_CACHE_DIR", (dir / "cache").c_str(), 1);
    execl("/bin/sh", "sh", "-c",
          (std::string("exec ") + HEADWAY_BINARY + " calibrate --target command --toolchain " +
           (dir / "pack.toml").string() +
           " --decisions 1000 --pool slurm "
           "--workers 2 --pool-host 127.0.0.1 >" +
           log + " 2>&1")
              .c_str(),
          static_cast<char*>(nullptr));
    _exit(127);
  }
  bool running = false;
  for (int i = 0; i < 600 && !running; ++i) {
    std::this_thread::sleep_for(std::chrono::milliseconds(100));
    const ProcessResult q = run_process({"squeue", "--noheader", "--states=RUNNING"}, 10);
    running = q.ok() && std::count(q.output.begin(), q.output.end(), '\n') == 2 &&
              read_file(log).value_or("").find("slurm pool") != std::string::npos;
  }
  ASSERT_TRUE(running) << read_file(log).value_or("");
  std::this_thread::sleep_for(std::chrono::seconds(2));  // jobs in flight
  kill(run, SIGKILL);
  int status = 0;
  waitpid(run, &status, 0);
  EXPECT_TRUE(cluster_->queue_empties_within(20))
      << "the workers see their connection close and exit";
}

}  // namespace
}  // namespace headway::pool
