// The study's pool broker and its clients, on a real worker pool: `headway worker` processes
// started by the test (process_launcher_test_support.h), jobs that are real shell commands.
#include "pool/pool_broker.h"

#include <fmt/format.h>
#include <gtest/gtest.h>

#include <atomic>
#include <functional>
#include <set>
#include <thread>

#include "common/file_io.h"
#include "pool/broker_client.h"
#include "pool/process_launcher_test_support.h"
#include "store/test_temp_dir.h"

namespace headway::pool {
namespace {

namespace fs = std::filesystem;
using testing::Processes;

struct BrokerFixture {
  store::TestTempDir dir;
  std::shared_ptr<Processes> processes = std::make_shared<Processes>();
  std::shared_ptr<DevicePool> pool;
  std::unique_ptr<PoolBroker> broker;

  explicit BrokerFixture(int workers) {
    auto p = testing::start_process_pool(processes, workers, dir.path() / "pool");
    if (!p) throw std::runtime_error(p.error().message);
    pool = *p;
    auto b = PoolBroker::start(pool, dir.path() / "study");
    if (!b) throw std::runtime_error(b.error().message);
    broker = std::move(*b);
  }
  std::unique_ptr<BrokerClient> client(const std::string& name, std::string token = "") const {
    BrokerClientOptions o;
    o.address = broker->address();
    o.token = token.empty() ? read_file(broker->token_file()).value() : token;
    if (!o.token.empty() && o.token.back() == '\n') o.token.pop_back();
    o.name = name;
    auto c = BrokerClient::connect(o);
    if (!c) throw std::runtime_error(c.error().message);
    return std::move(*c);
  }
  PoolJob shell(const std::string& script, double timeout = 30) const {
    return testing::shell_job(script, dir.path(), timeout);
  }
  // The broker's count of `field` for the run named `name`.
  int64_t run_figure(const std::string& name, const std::string& field) const {
    const nlohmann::json status = broker->status_json();
    for (const auto& r : status["runs"]) {
      if (r["name"] == name) return r[field].get<int64_t>();
    }
    return -1;
  }
  bool wait_for(const std::function<bool()>& done, double seconds = 30) const {
    for (int i = 0; i < seconds * 50; ++i) {
      if (done()) return true;
      std::this_thread::sleep_for(std::chrono::milliseconds(20));
    }
    return done();
  }
};

TEST(PoolBroker, JobsOfTwoRunsBothRunOnTheStudysWorkers) {
  BrokerFixture f(2);
  auto a = f.client("full/0"), b = f.client("full/1");
  EXPECT_EQ(a->devices(), 2);
  EXPECT_EQ(a->kind(), "study");
  EXPECT_EQ(a->study_kind(), "processes");
  std::vector<PoolJobResult> results(6);
  std::vector<std::thread> callers;
  for (int i = 0; i < 6; ++i) {
    callers.emplace_back(
        [&, i] { results[i] = (i % 2 ? *b : *a).run(f.shell("sleep 0.2; echo $HEADWAY_DEVICE")); });
  }
  for (auto& t : callers) t.join();
  for (const auto& r : results) {
    EXPECT_TRUE(r.process.ok()) << r.process.output;
    EXPECT_EQ(r.process.output.substr(0, 1), "w") << "run by a worker";
    EXPECT_EQ(r.worker.substr(0, 1), "w");
  }
  EXPECT_EQ(f.pool->stats().jobs, 6);
  EXPECT_EQ(f.pool->stats().workers_started, 2) << "the runs started no workers of their own";
  // Each run counts its own jobs only, and is charged with the time they held a device.
  EXPECT_EQ(a->stats().jobs, 3);
  EXPECT_EQ(b->stats().jobs, 3);
  int64_t jobs = 0;
  for (const auto& w : a->workers()) {
    jobs += w.jobs;
    EXPECT_EQ(w.held_seconds, w.busy_seconds);
    EXPECT_GE(w.busy_seconds, 0.2 * static_cast<double>(w.jobs)) << w.name;
    EXPECT_EQ(w.busy_spans.size(), static_cast<size_t>(w.jobs));
  }
  EXPECT_EQ(jobs, 3);
  const auto status = f.broker->status_json();
  EXPECT_EQ(f.run_figure("full/0", "jobs"), 3) << status.dump(2);
  EXPECT_EQ(f.run_figure("full/1", "jobs"), 3) << status.dump(2);
  std::set<std::string> runs;
  for (const auto& w : status["workers"]) {
    for (const auto& r : w["runs"]) runs.insert(r.get<std::string>());
  }
  EXPECT_EQ(runs, (std::set<std::string>{"full/0", "full/1"})) << status.dump(2);
}

TEST(PoolBroker, ARunWithManyJobsQueuedDoesNotStarveOneWithFew) {
  BrokerFixture f(1);
  auto many = f.client("many"), few = f.client("few");
  std::vector<std::thread> callers;
  for (int i = 0; i < 8; ++i) {
    callers.emplace_back([&, i] {
      EXPECT_TRUE(
          many->run(f.shell(fmt::format("echo many{} >> order; sleep 0.3", i))).process.ok());
    });
  }
  // One of them on the device and five or more queued at the broker before the other run asks:
  // first come, first served would run its job after all of those.
  EXPECT_TRUE(f.wait_for([&] { return f.run_figure("many", "queued") >= 5; }))
      << f.broker->status_json().dump(2);
  const auto lines = [&](const std::string& text) {
    return std::count(text.begin(), text.end(), '\n');
  };
  const auto started_before = lines(read_file(f.dir.path() / "order").value_or(""));
  EXPECT_TRUE(few->run(f.shell("echo few >> order")).process.ok());
  for (auto& t : callers) t.join();
  const std::string order = read_file(f.dir.path() / "order").value();
  EXPECT_LE(lines(order.substr(0, order.find("few"))), started_before + 2)
      << "one more of the other run's jobs before it (and one started as it asked):\n"
      << order;
  EXPECT_EQ(std::count(order.begin(), order.end(), '\n'), 9);
}

TEST(PoolBroker, ARunThatLeavesMidJobLosesNothingOfTheOthers) {
  BrokerFixture f(2);
  auto leaving = f.client("leaving"), staying = f.client("staying");
  std::vector<std::thread> callers;
  std::atomic<int> stopped{0};
  // Two long jobs on both devices, then three more queued behind them.
  const auto send = [&](const std::string& script) {
    callers.emplace_back([&, script] {
      try {
        leaving->run(f.shell(script));
      } catch (const PoolStopped&) {
        ++stopped;
      }
    });
  };
  for (int i = 0; i < 2; ++i) send("sleep 3; touch long-$$");
  EXPECT_TRUE(f.wait_for([&] { return f.pool->stats().running == 2; }));
  for (int i = 0; i < 3; ++i) send("touch queued-$$");
  EXPECT_TRUE(f.wait_for([&] { return f.run_figure("leaving", "queued") == 3; }))
      << f.broker->status_json().dump(2);
  std::vector<PoolJobResult> kept(3);
  std::vector<std::thread> others;
  for (int i = 0; i < 3; ++i) {
    others.emplace_back([&, i] { kept[i] = staying->run(f.shell("echo kept")); });
  }
  EXPECT_TRUE(f.wait_for([&] { return f.run_figure("staying", "queued") == 3; }));
  leaving.reset();  // its connection closes mid-job, as when its optimize is killed
  for (auto& t : callers) t.join();
  EXPECT_EQ(stopped, 5) << "every job of the run that left ends with PoolStopped";
  for (auto& t : others) t.join();
  for (const auto& r : kept) EXPECT_EQ(r.process.output, "kept\n");
  EXPECT_EQ(f.run_figure("leaving", "dropped"), 3);
  EXPECT_EQ(f.run_figure("staying", "jobs"), 3);
  int queued_ran = 0;
  for (const auto& e : fs::directory_iterator(f.dir.path()))
    queued_ran += e.path().filename().string().rfind("queued-", 0) == 0;
  EXPECT_EQ(queued_ran, 0) << "the jobs it queued were dropped, not run";
  EXPECT_EQ(f.pool->stats().workers_lost, 0);
  // The study goes on: a later run is served.
  EXPECT_EQ(f.client("later")->run(f.shell("echo later")).process.output, "later\n");
}

TEST(PoolBroker, ARunWithoutTheStudysTokenIsRefused) {
  BrokerFixture f(1);
  BrokerClientOptions o;
  o.address = f.broker->address();
  o.token = "0123456789abcdef0123456789abcdef";
  o.name = "intruder";
  const auto refused = BrokerClient::connect(o);
  ASSERT_FALSE(refused);
  EXPECT_NE(refused.error().message.find("refused this run: not this study's token"),
            std::string::npos)
      << refused.error().message;
  o.address = "127.0.0.1:notaport";
  EXPECT_EQ(BrokerClient::connect(o).error().code, ErrorCode::kInvalidInput);
  EXPECT_EQ((fs::status(f.broker->token_file()).permissions() & fs::perms::all),
            fs::perms::owner_read | fs::perms::owner_write);
  EXPECT_TRUE(f.broker->status_json()["runs"].empty());
  EXPECT_EQ(f.client("welcome")->run(f.shell("echo in")).process.output, "in\n");
}

TEST(PoolBroker, TheStudysPoolStoppingStopsEachRunsPool) {
  BrokerFixture f(1);
  auto a = f.client("a");
  ASSERT_TRUE(a->run(f.shell("true")).process.ok());
  f.pool->close();  // every worker lost, say: the pool can run no more
  EXPECT_THROW(a->run(f.shell("true")), PoolStopped);
  EXPECT_EQ(a->stats().jobs, 1);
}

TEST(PoolBroker, TheBrokerGoneEndsTheJobsInFlightWithPoolStopped) {
  BrokerFixture f(1);
  auto a = f.client("a");
  std::thread caller([&] { EXPECT_THROW(a->run(f.shell("sleep 20", 60)), PoolStopped); });
  EXPECT_TRUE(f.wait_for([&] { return f.pool->stats().running == 1; }));
  const auto before = std::chrono::steady_clock::now();
  f.broker.reset();  // the study ends (or is killed): its connections close
  caller.join();
  EXPECT_LT(std::chrono::steady_clock::now() - before, std::chrono::seconds(10))
      << "the job in flight was interrupted, not waited for";
  EXPECT_THROW(a->run(f.shell("true")), PoolStopped);
  EXPECT_EQ(a->events().size(), 2u) << "its pool, and why it stopped";
}

}  // namespace
}  // namespace headway::pool
