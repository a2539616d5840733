#include "pool/worker.h"

#include <gtest/gtest.h>

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
};

TEST(Worker, RunsJobsAnswersPingsAndLeavesOnGoodbye) {
  FakeRun run;
  std::ostringstream log;
  std::thread worker([&] { EXPECT_EQ(run_worker(run.options(), log), 0); });
  auto ch = run.listener->accept(10);
  ASSERT_TRUE(ch);
  nlohmann::json m;
  ASSERT_EQ(ch->receive(&m, 10), LineChannel::Received::kMessage);
  EXPECT_EQ(m["type"], "hello");
  EXPECT_EQ(m["token"], "secret");
  EXPECT_EQ(m["name"], "w1");
  EXPECT_EQ(m["protocol"], kProtocolVersion);
  ch->send({{"type", "welcome"}});
  ch->send({{"type", "ping"}});
  ASSERT_EQ(ch->receive(&m, 10), LineChannel::Received::kMessage);
  EXPECT_EQ(m["type"], "pong");
  PoolJob job;
  job.argv = {"sh", "-c", "echo out; exit 4"};
  ch->send({{"type", "job"}, {"id", 7}, {"job", job_to_json(job)}});
  ASSERT_EQ(ch->receive(&m, 10), LineChannel::Received::kMessage);
  EXPECT_EQ(m["type"], "result");
  EXPECT_EQ(m["id"], 7);
  const auto r = process_result_from_json(m["process"]);
  ASSERT_TRUE(r);
  EXPECT_EQ(r->exit_code, 4);
  EXPECT_EQ(r->output, "out\n");
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
  {
    auto ch = run.listener->accept(10);
    ASSERT_TRUE(ch);
    nlohmann::json m;
    ASSERT_EQ(ch->receive(&m, 10), LineChannel::Received::kMessage);
    ch->send({{"type", "welcome"}});
  }
  worker.join();
  EXPECT_NE(log.str().find("closed the connection"), std::string::npos) << log.str();
}

TEST(Worker, ExitsWhenItsLeaseRunsOutWithoutWordFromTheRun) {
  FakeRun run;
  WorkerOptions o = run.options();
  o.lease_seconds = 0.2;
  std::ostringstream log;
  std::thread worker([&] { EXPECT_EQ(run_worker(o, log), 0); });
  auto ch = run.listener->accept(10);
  ASSERT_TRUE(ch);
  nlohmann::json m;
  ASSERT_EQ(ch->receive(&m, 10), LineChannel::Received::kMessage);
  ch->send({{"type", "welcome"}});
  worker.join();  // the channel is still open: only the lease ends the worker
  EXPECT_NE(log.str().find("lease ran out"), std::string::npos) << log.str();
}

TEST(Worker, ARefusalOrNoRunAtAllIsItsExitStatus) {
  FakeRun run;
  std::ostringstream log;
  std::thread worker([&] { EXPECT_EQ(run_worker(run.options(), log), 2); });
  auto ch = run.listener->accept(10);
  ASSERT_TRUE(ch);
  nlohmann::json m;
  ASSERT_EQ(ch->receive(&m, 10), LineChannel::Received::kMessage);
  ch->send({{"type", "refused"}, {"why", "not this run's token"}});
  worker.join();
  EXPECT_NE(log.str().find("not this run's token"), std::string::npos) << log.str();

  WorkerOptions nowhere = run.options();
  run.listener.reset();
  EXPECT_EQ(run_worker(nowhere, log), 3);
}

}  // namespace
}  // namespace headway::pool
