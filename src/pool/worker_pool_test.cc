#include "pool/worker_pool.h"

#include <gtest/gtest.h>

#include <set>
#include <thread>

#include "common/file_io.h"
#include "pool/process_launcher_test_support.h"
#include "store/test_temp_dir.h"

namespace headway::pool {
namespace {

using testing::Processes;
using testing::ProcessLauncher;

struct PoolFixture {
  store::TestTempDir dir;
  std::shared_ptr<Processes> processes = std::make_shared<Processes>();
  std::unique_ptr<WorkerPool> pool;

  explicit PoolFixture(int workers, int replacements = -1, int job_attempts = 3) {
    auto l = std::make_unique<ProcessLauncher>(processes);
    WorkerPoolOptions o;
    o.workers = workers;
    o.advertise_host = "127.0.0.1";
    o.bind_host = "127.0.0.1";
    o.folder = dir.path() / "pool";
    o.headway_binary = HEADWAY_BINARY;
    o.lease_seconds = 30;
    o.ping_seconds = 0.5;
    o.poll_seconds = 0.2;
    o.replacements = replacements;
    o.job_attempts = job_attempts;
    o.status_file = dir.path() / "pool" / "status.json";
    auto p = WorkerPool::start(std::move(l), o);
    if (!p) throw std::runtime_error(p.error().message);
    pool = std::move(*p);
  }
  PoolJob shell(const std::string& script, double timeout = 30) const {
    return testing::shell_job(script, dir.path(), timeout);
  }
};

TEST(WorkerPool, RunsJobsFromManyThreadsOnAllItsWorkersAtOnce) {
  PoolFixture f(4);
  ASSERT_TRUE(f.pool->wait_for_workers(4, 30)) << f.pool->events().back();
  std::filesystem::create_directories(f.dir.path() / "barrier");
  // Each job waits until four jobs have started: it passes only when four run at once.
  const PoolJob job = f.shell(
      "touch barrier/$$; n=0; while [ $(ls barrier | wc -l) -lt 4 ]; do sleep 0.02; "
      "n=$((n+1)); [ $n -gt 1000 ] && exit 9; done; echo ok",
      60);
  std::vector<PoolJobResult> results(4);
  std::vector<std::thread> callers;
  for (int i = 0; i < 4; ++i) callers.emplace_back([&, i] { results[i] = f.pool->run(job); });
  for (auto& t : callers) t.join();
  std::set<std::string> workers;
  for (const auto& r : results) {
    EXPECT_TRUE(r.process.ok()) << r.process.output;
    EXPECT_EQ(r.process.output, "ok\n");
    EXPECT_EQ(r.attempts, 1);
    workers.insert(r.worker);
  }
  EXPECT_EQ(workers.size(), 4u);
  const PoolStats s = f.pool->stats();
  EXPECT_EQ(s.jobs, 4);
  EXPECT_EQ(s.workers_lost, 0);
  EXPECT_GT(s.device_seconds, 0.0);
  int64_t jobs = 0;
  double last_start = 0.0, first_end = 1e9;  // of the workers' busy spans
  for (const auto& w : f.pool->workers()) {
    EXPECT_EQ(w.state, "running");
    jobs += w.jobs;
    ASSERT_EQ(w.busy_spans.size(), 1u) << w.name;
    EXPECT_GE(w.busy_spans[0].first, w.connected_at) << w.name;
    last_start = std::max(last_start, w.busy_spans[0].first);
    first_end = std::min(first_end, w.busy_spans[0].second);
  }
  EXPECT_EQ(jobs, 4);
  EXPECT_LT(last_start, first_end) << "the four workers' spans overlap: they ran at once";
}

TEST(WorkerPool, AWorkersUseOverTimeIsTheSpansOfItsJobs) {
  PoolFixture f(1);
  ASSERT_TRUE(f.pool->wait_for_workers(1, 30));
  const PoolJob job = f.shell("sleep 0.3");
  ASSERT_TRUE(f.pool->run(job).process.ok());
  ASSERT_TRUE(f.pool->run(job).process.ok());  // right after the first: one span, or two
  std::this_thread::sleep_for(std::chrono::milliseconds(300));
  ASSERT_TRUE(f.pool->run(job).process.ok());
  const auto workers = f.pool->workers();
  ASSERT_EQ(workers.size(), 1u);
  const auto& spans = workers[0].busy_spans;
  ASSERT_GE(spans.size(), 2u);
  ASSERT_LE(spans.size(), 3u);
  double busy = 0.0;
  for (size_t i = 0; i < spans.size(); ++i) {
    EXPECT_LT(spans[i].first, spans[i].second);
    if (i > 0) {
      EXPECT_GE(spans[i].first, spans[i - 1].second) << "oldest first, apart";
    }
    busy += spans[i].second - spans[i].first;
  }
  EXPECT_GE(spans.back().first - spans[spans.size() - 2].second, 0.3) << "the pause";
  EXPECT_GE(busy, 0.9);
  EXPECT_NEAR(busy, workers[0].busy_seconds, 0.02);
  EXPECT_GE(spans[0].first, workers[0].connected_at);
  EXPECT_LE(spans.back().second, f.pool->stats().elapsed_seconds);
  EXPECT_EQ(workers[0].ended_at, -1.0);

  const nlohmann::json use = pool_use_json(*f.pool);
  EXPECT_EQ(use["devices"], 1);
  ASSERT_EQ(use["workers"].size(), 1u);
  EXPECT_EQ(use["workers"][0]["jobs"], 3);
  EXPECT_TRUE(use["workers"][0]["ended_s"].is_null());
  ASSERT_EQ(use["workers"][0]["busy"].size(), spans.size());
  EXPECT_DOUBLE_EQ(use["workers"][0]["busy"].back()[0].get<double>(), spans.back().first);
}

TEST(WorkerPool, AJobWhoseWorkerDiesIsRunAgainElsewhereAndTheWorkerReplaced) {
  PoolFixture f(2);
  ASSERT_TRUE(f.pool->wait_for_workers(2, 30));
  // The first run kills its own worker (the job's parent) with SIGKILL.
  const PoolJobResult r = f.pool->run(
      f.shell("if [ ! -e first ]; then touch first; kill -9 $PPID; sleep 5; fi; echo second"));
  EXPECT_EQ(r.process.output, "second\n");
  EXPECT_EQ(r.attempts, 2);
  const PoolStats s = f.pool->stats();
  EXPECT_EQ(s.jobs, 1) << "the lost run is never reported";
  EXPECT_EQ(s.retried, 1);
  EXPECT_EQ(s.workers_lost, 1);
  EXPECT_EQ(s.workers_started, 3) << "a replacement";
  ASSERT_TRUE(f.pool->wait_for_workers(2, 30)) << "the replacement connects";
  int lost = 0;
  for (const auto& w : f.pool->workers()) {
    if (w.state == "lost") {
      ++lost;
      EXPECT_EQ(w.why, "its connection closed during a job");
    }
  }
  EXPECT_EQ(lost, 1);
}

TEST(WorkerPool, WithNoWorkerLeftItStopsInsteadOfWaitingForever) {
  PoolFixture f(1, /*replacements=*/0);
  ASSERT_TRUE(f.pool->wait_for_workers(1, 30));
  EXPECT_THROW(f.pool->run(f.shell("kill -9 $PPID; sleep 5")), PoolStopped);
  EXPECT_THROW(f.pool->run(f.shell("true")), PoolStopped);
  EXPECT_NE(f.pool->events().back().find("no replacement is left"), std::string::npos);
}

TEST(WorkerPool, AJobLostOnEveryAttemptFailsAsThePools) {
  PoolFixture f(1, /*replacements=*/5, /*job_attempts=*/2);
  try {
    f.pool->run(f.shell("kill -9 $PPID; sleep 5"));
    FAIL() << "a job that kills every worker it meets cannot succeed";
  } catch (const PoolStopped& e) {
    EXPECT_NE(std::string(e.what()).find("lost with its worker 2 times"), std::string::npos)
        << e.what();
  }
  EXPECT_EQ(f.pool->stats().workers_lost, 2);
}

TEST(WorkerPool, AConnectionWithoutTheTokenIsRefused) {
  PoolFixture f(1);
  auto ch = LineChannel::connect("127.0.0.1", f.pool->port(), 5);
  ASSERT_TRUE(ch);
  (*ch)->send({{"type", "hello"}, {"token", "guess"}, {"name", "w1"}, {"protocol", 1}});
  nlohmann::json m;
  ASSERT_EQ((*ch)->receive(&m, 10), LineChannel::Received::kMessage);
  EXPECT_EQ(m["type"], "refused");
  EXPECT_TRUE(f.pool->wait_for_workers(1, 30)) << "the real w1 still gets in";
}

TEST(WorkerPool, ClosingThePoolEndsEveryWorkerAndLeavesItsFinalStatus) {
  PoolFixture f(3);
  ASSERT_TRUE(f.pool->wait_for_workers(3, 30));
  ASSERT_EQ(f.processes->count(), 3u);
  ASSERT_TRUE(f.pool->run(f.shell("true")).process.ok());
  f.pool.reset();
  EXPECT_TRUE(f.processes->all_exit_within(10));
  const auto text = read_file(f.dir.path() / "pool" / "status.json");
  ASSERT_TRUE(text);
  const auto status = nlohmann::json::parse(*text);
  EXPECT_EQ(status["kind"], "processes");
  EXPECT_EQ(status["devices"], 3);
  EXPECT_EQ(status["stats"]["jobs"], 1);
  EXPECT_EQ(status["stats"]["running"], 0);
  ASSERT_EQ(status["workers"].size(), 3u);
  int64_t jobs = 0;
  for (const auto& w : status["workers"]) {
    EXPECT_EQ(w["state"], "done");
    EXPECT_EQ(w["node"], this_host_name()) << "the node the worker reports";
    jobs += w["jobs"].get<int64_t>();
  }
  EXPECT_EQ(jobs, 1);
  EXPECT_GE(status["events"].size(), 6u) << "three submitted, three connected";
}

TEST(WorkerPool, AWorkerThatLeavesTheSchedulerBeforeConnectingIsLostAndReplaced) {
  store::TestTempDir dir;
  auto processes = std::make_shared<Processes>();
  WorkerPoolOptions o;
  o.workers = 1;
  o.advertise_host = "127.0.0.1";
  o.folder = dir.path();
  o.headway_binary = "/bin/false";  // exits at once, never connects
  o.replacements = 2;
  o.poll_seconds = 0.05;
  auto pool = WorkerPool::start(std::make_unique<ProcessLauncher>(processes), o);
  ASSERT_TRUE(pool);
  PoolJob job;
  job.argv = {"true"};
  EXPECT_THROW((*pool)->run(job), PoolStopped);
  const PoolStats s = (*pool)->stats();
  EXPECT_EQ(s.workers_started, 3);
  EXPECT_EQ(s.workers_lost, 3);
  EXPECT_EQ((*pool)->workers().front().why, "its job left the scheduler before it connected");
}

TEST(WorkerPool, StartRefusesNoWorkersOrNoBinary) {
  WorkerPoolOptions o;
  o.workers = 0;
  o.headway_binary = HEADWAY_BINARY;
  auto none =
      WorkerPool::start(std::make_unique<ProcessLauncher>(std::make_shared<Processes>()), o);
  ASSERT_FALSE(none);
  EXPECT_EQ(none.error().code, ErrorCode::kInvalidInput);
}

}  // namespace
}  // namespace headway::pool
