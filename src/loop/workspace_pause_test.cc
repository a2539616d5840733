// The workspace lock and pause requests on a real workspace: real flocks, real processes' pids,
// an optimizer side and a pauser side on separate connections and threads.
#include "loop/workspace_pause.h"

#include <gtest/gtest.h>
#include <sys/wait.h>
#include <unistd.h>

#include <atomic>
#include <nlohmann/json.hpp>
#include <thread>
#include <vector>

#include "common/test_processes.h"
#include "store/test_temp_dir.h"

namespace headway::loop {
namespace {

using namespace std::chrono_literals;
using Kind = PausableLock::Event::Kind;

class OptimizePause : public ::testing::Test {
 protected:
  void SetUp() override { ASSERT_TRUE(store::Workspace::create(dir_.path()).ok()); }
  store::Workspace open() { return store::Workspace::open(dir_.path()).value(); }

  store::TestTempDir dir_;
};

TEST_F(OptimizePause, TheLockIsExclusiveAndNamesItsHolder) {
  auto first = WorkspaceLock::try_acquire(dir_.path(), "optimize");
  ASSERT_TRUE(first);
  EXPECT_FALSE(WorkspaceLock::try_acquire(dir_.path(), "migrate"));
  const auto holder = WorkspaceLock::holder(dir_.path());
  ASSERT_TRUE(holder);
  EXPECT_EQ(holder->pid, getpid());
  EXPECT_EQ(holder->role, "optimize");
  EXPECT_EQ(holder->describe(), "headway optimize (pid " + std::to_string(getpid()) + ")");
  first->release();
  EXPECT_TRUE(WorkspaceLock::try_acquire(dir_.path(), "migrate"));
}

TEST_F(OptimizePause, ASecondOptimizerIsRefusedNamingTheFirst) {
  auto ws1 = open();
  auto ws2 = open();
  PausableLock first(ws1, nullptr);
  EXPECT_FALSE(first.enter());
  PausableLock second(ws2, nullptr);
  try {
    second.enter();
    FAIL() << "a second optimizer entered";
  } catch (const std::runtime_error& e) {
    EXPECT_EQ(std::string(e.what()),
              "another headway optimize (pid " + std::to_string(getpid()) +
                  ") is working on this workspace; wait for it to finish or stop it");
  }
}

TEST_F(OptimizePause, AStaleRequestIsClearedAndReported) {
  auto ws = open();
  const int64_t pid = dead_pid();
  ws.set_meta(kPauseRequestKey,
              nlohmann::json{{"pid", pid}, {"reason", "a crashed migration"}}.dump());
  const auto request = read_pause_request(ws);
  ASSERT_TRUE(request);
  EXPECT_EQ(request->pid, pid);
  EXPECT_FALSE(request_alive(*request));
  std::vector<PausableLock::Event> events;
  PausableLock lock(ws, [&](const PausableLock::Event& e) { events.push_back(e); });
  EXPECT_FALSE(lock.enter());
  EXPECT_FALSE(lock.pause_if_requested());
  EXPECT_FALSE(read_pause_request(ws));
  ASSERT_EQ(events.size(), 1u);
  EXPECT_EQ(events[0].kind, Kind::kStaleCleared);
  EXPECT_EQ(events[0].request.reason, "a crashed migration");

  // Garbage is stale too; a live pid with another start time is someone else.
  ws.set_meta(kPauseRequestKey, "not json");
  EXPECT_FALSE(lock.pause_requested());
  EXPECT_FALSE(read_pause_request(ws));
  PauseRequest reused{getpid(), "1", "", "", ""};
  EXPECT_FALSE(request_alive(reused));
  reused.start = process_start_time(getpid());
  EXPECT_TRUE(request_alive(reused));
}

TEST_F(OptimizePause, ThePauserWaitsForTheOptimizerWhichResumesAfterIt) {
  auto ws = open();
  std::vector<Kind> events;
  PausableLock lock(
      ws, [&](const PausableLock::Event& e) { events.push_back(e.kind); }, 20ms);
  ASSERT_FALSE(lock.enter());

  std::atomic<bool> held{false};
  bool waited = false;
  std::string error;
  std::thread pauser([&] {
    auto ws2 = open();
    auto pause = WorkspacePause::acquire(ws2, "migrate", "test migration", 10s, nullptr);
    if (!pause) {
      error = pause.error().message;
      return;
    }
    held = true;
    waited = pause->waited();
    std::this_thread::sleep_for(300ms);
    EXPECT_TRUE(held);
  });
  while (!read_pause_request(ws)) std::this_thread::sleep_for(10ms);
  EXPECT_FALSE(held);  // the optimizer still holds the lock
  const auto paused = lock.pause_if_requested();
  pauser.join();
  ASSERT_TRUE(error.empty()) << error;
  ASSERT_TRUE(paused);
  EXPECT_GE(*paused, 0.25);
  EXPECT_TRUE(waited);
  EXPECT_EQ(events, (std::vector<Kind>{Kind::kPaused, Kind::kResumed}));
  EXPECT_FALSE(read_pause_request(ws));
  const auto last = nlohmann::json::parse(ws.meta(kLastPauseKey).value());
  EXPECT_EQ(last["reason"], "test migration");
  EXPECT_LT(last["requested_at"].get<std::string>(), last["released_at"].get<std::string>());
  EXPECT_LE(last["held_at"].get<std::string>(), last["released_at"].get<std::string>());
  // The optimizer holds the lock again.
  EXPECT_FALSE(WorkspaceLock::try_acquire(dir_.path(), "test"));
  EXPECT_FALSE(lock.pause_if_requested());
}

TEST_F(OptimizePause, APauserThatTimesOutChangesNothing) {
  auto ws = open();
  auto ws2 = open();
  PausableLock lock(ws, nullptr);  // enters and never looks for requests
  ASSERT_FALSE(lock.enter());
  std::vector<LockHolder> waiting;
  auto pause = WorkspacePause::acquire(ws2, "migrate", "test", 300ms,
                                       [&](const LockHolder& h) { waiting.push_back(h); });
  ASSERT_FALSE(pause);
  EXPECT_EQ(pause.error().message, "headway optimize (pid " + std::to_string(getpid()) +
                                       ") did not pause within 0.3 s; nothing changed");
  ASSERT_EQ(waiting.size(), 1u);
  EXPECT_EQ(waiting[0].role, "optimize");
  EXPECT_FALSE(read_pause_request(ws));
  EXPECT_FALSE(ws.meta(kLastPauseKey));
}

TEST_F(OptimizePause, OnePauserAtATimeAndRelease) {
  auto ws = open();
  auto ws2 = open();
  auto first = WorkspacePause::acquire(ws, "migrate", "first", 1s, nullptr);
  ASSERT_TRUE(first) << first.error().message;
  EXPECT_FALSE(first->waited());
  auto second = WorkspacePause::acquire(ws2, "migrate", "second", 1s, nullptr);
  ASSERT_FALSE(second);
  EXPECT_NE(second.error().message.find("already paused by pid"), std::string::npos)
      << second.error().message;
  // An optimizer starting now waits as paused: here it would wait forever, so only the request
  // is checked.
  PausableLock lock(ws2, nullptr);
  EXPECT_TRUE(lock.pause_requested());
  first->release();
  EXPECT_FALSE(read_pause_request(ws));
  EXPECT_FALSE(lock.enter());
}

}  // namespace
}  // namespace headway::loop
