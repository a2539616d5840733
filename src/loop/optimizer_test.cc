// The optimize loop as a user runs it: a real `headway` process on a real workspace, killed with
// SIGKILL at several moments and resumed.
#include <gtest/gtest.h>

#include <filesystem>

#include "common/subprocess.h"
#include "store/workspace.h"
#include "trees/decision_log.h"
#include "trees/design_tree.h"
#include "trees/race_log.h"

namespace headway::loop {
namespace {

namespace fs = std::filesystem;

ProcessResult headway(std::vector<std::string> args, double timeout) {
  args.insert(args.begin(), HEADWAY_BINARY);
  return run_process(args, timeout);
}

// Everything a resumed run relies on: finished tests have exactly their readings, every head
// is accepted, the head history only ever moves to faster nodes' records. A run killed during an
// acceptance test leaves that one test unfinished (the next run discards it): `killed` allows one.
void expect_consistent(const fs::path& dir, bool killed) {
  auto ws = store::Workspace::open(dir);
  ASSERT_TRUE(ws) << ws.error().message;
  for (const auto& k : trees::DesignTree::kernels(ws.value())) {
    auto tree = trees::DesignTree::open(ws.value(), k.name);
    ASSERT_TRUE(tree);
    trees::DecisionLog log(tree.value());
    int unfinished = 0;
    for (const auto& t : log.tests()) {
      if (!t.outcome) {
        ++unfinished;
        continue;
      }
      EXPECT_EQ(log.readings(t.id).size(), static_cast<size_t>(2 * t.pairs)) << "test " << t.id;
    }
    EXPECT_LE(unfinished, killed ? 1 : 0) << "an unfinished test survived a resume";
    // Likewise races: a finished race has one stored reading per reading it spent.
    trees::RaceLog races(tree.value());
    int unfinished_races = 0;
    for (const auto& r : races.races()) {
      if (!r.finished_at) {
        ++unfinished_races;
        continue;
      }
      EXPECT_EQ(static_cast<int64_t>(races.readings(r.id).size()), *r.spent) << "race " << r.id;
    }
    EXPECT_LE(unfinished_races, killed ? 1 : 0) << "an unfinished race survived a resume";
    for (const auto& h : tree.value().head_history()) {
      const auto node = tree.value().node(h.node_id);
      ASSERT_TRUE(node);
      EXPECT_EQ(node->status, trees::NodeStatus::kAccepted);
    }
  }
}

TEST(OptimizeLoop, SurvivesKillNineAndResumes) {
  const fs::path dir =
      fs::temp_directory_path() / ("headway-optimize-test-" + std::to_string(getpid()));
  fs::remove_all(dir);
  ASSERT_EQ(headway({"init", dir.string()}, 30).exit_code, 0);
  const std::vector<std::string> run = {"optimize", "--kernels",   "attn_out",  "--budget",
                                        "40s",      "--workspace", dir.string()};
  for (double kill_after : {2.0, 5.0, 9.0}) {
    const auto r = headway(run, kill_after);
    EXPECT_TRUE(r.timed_out) << "the run ended before the kill at " << kill_after << " s:\n"
                             << r.output;
    expect_consistent(dir, true);
  }
  const auto done = headway(
      {"optimize", "--kernels", "attn_out", "--budget", "25s", "--workspace", dir.string()}, 300);
  ASSERT_EQ(done.exit_code, 0) << done.output;
  expect_consistent(dir, false);
  const auto status = headway({"status", "--workspace", dir.string()}, 30);
  ASSERT_EQ(status.exit_code, 0) << status.output;
  EXPECT_NE(status.output.find("attn_out"), std::string::npos) << status.output;
  // The run ends by timing baseline and head side by side; status reports those figures.
  EXPECT_NE(done.output.find("timing every baseline and head side by side"), std::string::npos)
      << done.output;
  EXPECT_NE(done.output.find("  attn_out baseline "), std::string::npos) << done.output;
  EXPECT_NE(status.output.find("attn_out*"), std::string::npos) << status.output;
  fs::remove_all(dir);
}

// Any registered target: the sim target runs the whole loop through the real binary in seconds,
// and the workspace keeps it.
TEST(OptimizeLoop, RunsOnAnyRegisteredTarget) {
  const fs::path dir =
      fs::temp_directory_path() / ("headway-optimize-sim-" + std::to_string(getpid()));
  fs::remove_all(dir);
  ASSERT_EQ(headway({"init", dir.string()}, 30).exit_code, 0);
  const auto done = headway({"optimize", "--target", "sim", "--kernels", "qkv", "--budget", "5m",
                             "--workspace", dir.string()},
                            120);
  ASSERT_EQ(done.exit_code, 0) << done.output;
  EXPECT_NE(done.output.find("nothing left to try"), std::string::npos) << done.output;
  EXPECT_NE(done.output.find("  qkv      baseline "), std::string::npos) << done.output;
  expect_consistent(dir, false);
  const auto status = headway({"status", "--workspace", dir.string()}, 30);
  ASSERT_EQ(status.exit_code, 0) << status.output;
  EXPECT_NE(status.output.find("qkv"), std::string::npos) << status.output;
  const auto other = headway({"optimize", "--target", "cpu", "--workspace", dir.string()}, 30);
  EXPECT_EQ(other.exit_code, 2) << other.output;
  EXPECT_NE(other.output.find("the workspace optimizes for target 'sim', not 'cpu'"),
            std::string::npos)
      << other.output;
  fs::remove_all(dir);
}

TEST(OptimizeLoop, BadInputChangesNothing) {
  const fs::path dir =
      fs::temp_directory_path() / ("headway-optimize-bad-" + std::to_string(getpid()));
  fs::remove_all(dir);
  ASSERT_EQ(headway({"init", dir.string()}, 30).exit_code, 0);
  const auto db = dir / ".headway" / "headway.db";
  const auto before = fs::last_write_time(db);
  const auto size = fs::file_size(db);
  struct Case {
    std::vector<std::string> args;
    std::string message;
  };
  for (const Case& c : std::vector<Case>{
           {{"optimize", "--kernels", "gemm", "--workspace", dir.string()},
            "unknown kernel 'gemm'"},
           {{"optimize", "--budget", "soon", "--workspace", dir.string()},
            "--budget 'soon' does not parse"},
           {{"optimize", "--target", "tpu", "--workspace", dir.string()},
            "target 'tpu' is not available"},
           {{"optimize", "--workspace", (dir / "nowhere").string()}, "workspace"},
           {{"optimize", "--confirm-calls", "-5", "--workspace", dir.string()}, "--confirm-calls"},
       }) {
    const auto r = headway(c.args, 30);
    EXPECT_EQ(r.exit_code, 2) << r.output;
    EXPECT_NE(r.output.find(c.message), std::string::npos) << r.output;
  }
  EXPECT_EQ(fs::last_write_time(db), before);
  EXPECT_EQ(fs::file_size(db), size);
  fs::remove_all(dir);
}

}  // namespace
}  // namespace headway::loop
