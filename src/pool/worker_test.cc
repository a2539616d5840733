#include "pool/worker.h"

#include <gtest/gtest.h>
#include <signal.h>
#include <unistd.h>

#include <chrono>
#include <functional>
#include <optional>
#include <sstream>
#include <thread>

#include "pool/line_channel.h"

namespace headway::pool {
namespace {

// A run that welcomes one worker, then plays `script` with it.
struct FakeRun {
  std::unique_ptr<Listener> listener = Listener::open("127.0.0.1").value();
  WorkerOptions options() const {
    WorkerOptions o;
    o.host = "127.0.0.1";
    o.port = listener->port();
    o.token = "secret";
    o.name = "w1";
    o.lease_seconds = 5;
    return o;
  }
  // Takes the worker's connection, keeps its hello and answers it.
  std::unique_ptr<LineChannel> greet(const nlohmann::json& answer) {
    auto ch = listener->accept(10);
    EXPECT_TRUE(ch);
    if (!ch) return ch;
    EXPECT_EQ(ch->receive(&hello, 10), LineChannel::Received::kMessage);
    ch->send(answer);
    return ch;
  }
  nlohmann::json hello;
};

const nlohmann::json kWelcome = {{"type", "welcome"}};

TEST(Worker, RunsJobsAnswersPingsAndLeavesOnGoodbye) {
  FakeRun run;
  std::ostringstream log;
  std::thread worker([&] { EXPECT_EQ(run_worker(run.options(), log), 0); });
  auto ch = run.greet(kWelcome);
  ASSERT_TRUE(ch);
  EXPECT_EQ(run.hello["type"], "hello");
  EXPECT_EQ(run.hello["token"], "secret");
  EXPECT_EQ(run.hello["name"], "w1");
  EXPECT_EQ(run.hello["protocol"], kProtocolVersion);
  nlohmann::json m;
  ch->send({{"type", "ping"}});
  ASSERT_EQ(ch->receive(&m, 10), LineChannel::Received::kMessage);
  EXPECT_EQ(m["type"], "pong");
  PoolJob job;
  job.argv = {"sh", "-c", "echo out $HEADWAY_DEVICE; exit 4"};
  ch->send({{"type", "job"}, {"id", 7}, {"job", job_to_json(job)}});
  ASSERT_EQ(ch->receive(&m, 10), LineChannel::Received::kMessage);
  EXPECT_EQ(m["type"], "result");
  EXPECT_EQ(m["id"], 7);
  const auto r = process_result_from_json(m["process"]);
  ASSERT_TRUE(r);
  EXPECT_EQ(r->exit_code, 4);
  EXPECT_EQ(r->output, "out w1@" + this_host_name() + "\n") << "jobs see their device";
  ch->send({{"type", "job"}, {"id", 8}, {"job", {{"argv", "broken"}}}});
  ASSERT_EQ(ch->receive(&m, 10), LineChannel::Received::kMessage);
  EXPECT_NE(m.value("error", "").find("malformed job"), std::string::npos) << m.dump();
  ch->send({{"type", "bye"}});
  worker.join();
  EXPECT_NE(log.str().find("done; 2 jobs"), std::string::npos) << log.str();
}

TEST(Worker, ExitsWhenTheRunClosesTheConnection) {
  FakeRun run;
  std::ostringstream log;
  std::thread worker([&] { EXPECT_EQ(run_worker(run.options(), log), 0); });
  run.greet(kWelcome);  // and closes the connection at once
  worker.join();
  EXPECT_NE(log.str().find("closed the connection"), std::string::npos) << log.str();
}

TEST(Worker, ExitsWhenItsLeaseRunsOutWithoutWordFromTheRun) {
  FakeRun run;
  WorkerOptions o = run.options();
  o.lease_seconds = 0.2;
  std::ostringstream log;
  std::thread worker([&] { EXPECT_EQ(run_worker(o, log), 0); });
  auto ch = run.greet(kWelcome);
  worker.join();  // the channel is still open: only the lease ends the worker
  EXPECT_NE(log.str().find("lease ran out"), std::string::npos) << log.str();
}

// A worker of `run` on a thread of its own, with its log and exit status.
struct WorkerThread {
  explicit WorkerThread(FakeRun& run)
      : thread([this, &run] { status = run_worker(run.options(), log); }) {}
  std::ostringstream log;
  int status = -1;
  std::thread thread;  // last: it starts once the others are made
};

TEST(Worker, ASchedulersSignalDuringAJobEndsTheWorkerWithoutItsResult) {
  FakeRun run;
  WorkerThread worker(run);
  auto ch = run.greet(kWelcome);
  ASSERT_TRUE(ch);
  PoolJob job;
  job.argv = {"sh", "-c", "sleep 0.5; echo finished"};
  ch->send({{"type", "job"}, {"id", 1}, {"job", job_to_json(job)}});
  std::this_thread::sleep_for(std::chrono::milliseconds(100));
  kill(getpid(), SIGTERM);  // caught by the worker's handler while it runs
  nlohmann::json m;
  EXPECT_EQ(ch->receive(&m, 10), LineChannel::Received::kClosed) << m.dump();
  worker.thread.join();
  EXPECT_EQ(worker.status, 128 + SIGTERM);
  EXPECT_NE(worker.log.str().find("ended by signal 15"), std::string::npos) << worker.log.str();
}

// Runs `job` on a worker, calling `during` while it runs. With `term_after`, the worker gets
// SIGTERM that long after the job was sent (the job has ended by then) and must leave without
// sending the result; without, the result comes and is returned.
std::optional<nlohmann::json> result_unless_signalled(
    const PoolJob& job, std::optional<std::chrono::milliseconds> term_after,
    const std::function<void()>& during = [] {}) {
  FakeRun run;
  WorkerThread worker(run);
  auto ch = run.greet(kWelcome);
  EXPECT_TRUE(ch);
  if (!ch) return std::nullopt;
  const auto sent = std::chrono::steady_clock::now();
  ch->send({{"type", "job"}, {"id", 1}, {"job", job_to_json(job)}});
  during();
  nlohmann::json m;
  if (term_after) {
    std::this_thread::sleep_until(sent + *term_after);
    kill(getpid(), SIGTERM);
    EXPECT_EQ(ch->receive(&m, 10), LineChannel::Received::kClosed) << m.dump();
    worker.thread.join();
    EXPECT_EQ(worker.status, 128 + SIGTERM);
    return std::nullopt;
  }
  EXPECT_EQ(ch->receive(&m, 10), LineChannel::Received::kMessage);
  ch->send({{"type", "bye"}});
  worker.thread.join();
  EXPECT_EQ(worker.status, 0);
  return m;
}

TEST(Worker, AJobKilledFromOutsideWaitsForTheWorkersOwnSignalBeforeItCounts) {
  PoolJob job;
  job.argv = {"sh", "-c", "kill -TERM $$"};  // as the scheduler's signal meets the job first
  // ... and the worker a moment later: no result is sent.
  result_unless_signalled(job, std::chrono::milliseconds(300));
  // No signal follows: the result counts (a candidate may be killed by SIGTERM of its own).
  const auto result = result_unless_signalled(job, std::nullopt);
  ASSERT_TRUE(result);
  EXPECT_EQ((*result)["process"]["signal"], SIGTERM);
}

TEST(Worker, ASigcontDuringAJobThatEndsNormallyWaitsForTheWorkersOwnSignal) {
  // Slurm ends a job with SIGCONT to all its processes, then SIGTERM to each: a shell whose child
  // was killed first goes on and ends normally, and the worker's SIGTERM comes after.
  PoolJob job;
  job.argv = {"sh", "-c", "sleep 0.3; echo finished"};
  const auto sigcont = [] {
    std::this_thread::sleep_for(std::chrono::milliseconds(100));
    kill(getpid(), SIGCONT);
  };
  result_unless_signalled(job, std::chrono::milliseconds(600), sigcont);
  // No ending signal follows within the wait: the result counts.
  const auto result = result_unless_signalled(job, std::nullopt, sigcont);
  ASSERT_TRUE(result);
  EXPECT_EQ((*result)["process"]["output"], "finished\n");
}

TEST(Worker, ARefusalOrNoRunAtAllIsItsExitStatus) {
  FakeRun run;
  std::ostringstream log;
  std::thread worker([&] { EXPECT_EQ(run_worker(run.options(), log), 2); });
  auto ch = run.greet({{"type", "refused"}, {"why", "not this run's token"}});
  worker.join();
  EXPECT_NE(log.str().find("not this run's token"), std::string::npos) << log.str();

  WorkerOptions nowhere = run.options();
  run.listener.reset();
  EXPECT_EQ(run_worker(nowhere, log), 3);
}

}  // namespace
}  // namespace headway::pool
