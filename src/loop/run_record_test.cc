// The run record on a real workspace, with real processes' pids.
#include "loop/run_record.h"

#include <gtest/gtest.h>
#include <sys/wait.h>
#include <unistd.h>

#include <nlohmann/json.hpp>

#include "common/test_processes.h"
#include "loop/workspace_pause.h"
#include "store/test_temp_dir.h"

namespace headway::loop {
namespace {

class RunRecordTest : public ::testing::Test {
 protected:
  store::TestTempDir dir_;
  store::Workspace ws_ = store::Workspace::create(dir_.path()).value();
};

TEST_F(RunRecordTest, TheRecorderKeepsTheLatestProgressAndDeletesItsRecordAtTheEnd) {
  EXPECT_FALSE(read_run_record(ws_));
  {
    RunRecorder recorder(ws_, 600);
    auto r = running_optimize(ws_);
    ASSERT_TRUE(r);
    EXPECT_EQ(r->pid, getpid());
    EXPECT_EQ(r->start, process_start_time(getpid()));
    EXPECT_FALSE(r->started_at.empty());
    EXPECT_EQ(r->budget_s, 600);
    EXPECT_EQ(r->progress.stage, "starting");
    EXPECT_EQ(r->progress.budget_left_s, 600);

    Progress p;
    p.kernel = "ffn";
    p.node = 7;
    p.design = "tiled";
    p.stage = "race of 3";
    p.elapsed_s = 42;
    p.budget_left_s = 558;
    p.kernels = {{"ffn", 2.0, 1.0}};
    const double before = unix_now();
    recorder.update(p);
    r = running_optimize(ws_);
    ASSERT_TRUE(r);
    EXPECT_EQ(r->progress.kernel, "ffn");
    EXPECT_EQ(r->progress.node, 7);
    EXPECT_EQ(r->progress.design, "tiled");
    EXPECT_EQ(r->progress.stage, "race of 3");
    EXPECT_EQ(r->progress.elapsed_s, 42);
    EXPECT_EQ(r->progress.budget_left_s, 558);
    EXPECT_GE(r->updated_unix, before);
    EXPECT_LE(r->updated_unix, unix_now());
    EXPECT_EQ(r->started_at, read_run_record(ws_)->started_at);
  }
  EXPECT_FALSE(ws_.meta(kRunRecordKey)) << "deleted when the run ended";
}

TEST_F(RunRecordTest, ARecordOfAProcessNoLongerRunningIsStale) {
  const nlohmann::json stale = {{"pid", dead_pid()},
                                {"start", "1"},
                                {"started_at", "2026-01-01T00:00:00.000Z"},
                                {"budget_s", 60.0},
                                {"updated_unix", 1.0},
                                {"progress", {{"stage", "screen"}, {"budget_left_s", 30.0}}}};
  ws_.set_meta(kRunRecordKey, stale.dump());
  ASSERT_TRUE(read_run_record(ws_));
  EXPECT_FALSE(read_run_record(ws_)->alive());
  EXPECT_FALSE(running_optimize(ws_));

  // This process, but with another start time: a later process given a reused pid.
  nlohmann::json reused = stale;
  reused["pid"] = getpid();
  reused["start"] = process_start_time(getpid()) + "0";
  ws_.set_meta(kRunRecordKey, reused.dump());
  EXPECT_FALSE(running_optimize(ws_));
  reused["start"] = process_start_time(getpid());
  ws_.set_meta(kRunRecordKey, reused.dump());
  EXPECT_TRUE(running_optimize(ws_));

  ws_.set_meta(kRunRecordKey, "not json");
  EXPECT_FALSE(read_run_record(ws_));
}

TEST_F(RunRecordTest, AnExitedProcessNotYetReapedRunsNoMore) {
  const pid_t child = fork();
  if (child == 0) _exit(0);
  // The child is a zombie until waited for.
  for (int i = 0; i < 200 && process_alive(child, ""); ++i) usleep(10000);
  EXPECT_FALSE(process_alive(child, ""));
  int status = 0;
  waitpid(child, &status, 0);
  EXPECT_TRUE(process_alive(getpid(), process_start_time(getpid())));
}

TEST_F(RunRecordTest, AStaleRecordIsReplacedAndAnotherRecordIsNotDeleted) {
  ws_.set_meta(kRunRecordKey, R"({"pid": 1, "start": "x"})");
  {
    RunRecorder recorder(ws_, 10);
    EXPECT_EQ(read_run_record(ws_)->pid, getpid());
    ws_.set_meta(kRunRecordKey, R"({"pid": 2, "start": "y"})");  // someone else's, now
  }
  ASSERT_TRUE(read_run_record(ws_));
  EXPECT_EQ(read_run_record(ws_)->pid, 2);
}

TEST(RunRecordBudget, TheBudgetLeftRunsDownExceptWhilePaused) {
  RunRecord r;
  r.updated_unix = 1000;
  r.progress.stage = "screen";
  r.progress.budget_left_s = 300;
  EXPECT_EQ(r.budget_left_at(1000), 300);
  EXPECT_EQ(r.budget_left_at(1100), 200);
  EXPECT_EQ(r.budget_left_at(2000), 0);
  EXPECT_EQ(r.budget_left_at(900), 300) << "a clock behind the record adds nothing";
  r.progress.stage = "paused";
  EXPECT_EQ(r.budget_left_at(1100), 300);
}

}  // namespace
}  // namespace headway::loop
