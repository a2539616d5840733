// The optimize loop with rounds on several kernels at once (OptimizeOptions::concurrent_rounds),
// on the stand-in pack through a pool of worker processes: every round's decisions reach the
// workspace, a pause waits for every round in flight, and a device that stops in one round ends
// the run without losing the others'.
#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <filesystem>
#include <fstream>
#include <mutex>
#include <set>
#include <sstream>
#include <thread>
#include <utility>

#include "common/sandbox.h"
#include "loop/library_proposer.h"
#include "loop/optimizer.h"
#include "loop/workspace_pause.h"
#include "pool/process_launcher_test_support.h"
#include "store/test_temp_dir.h"
#include "targets/command/command_target.h"
#include "trees/design_tree.h"

namespace headway::command {
namespace {

namespace fs = std::filesystem;

// The design library, slow to answer as an agent is, counting the proposals asked for at once.
class SlowLibrary final : public loop::Proposer {
 public:
  explicit SlowLibrary(const targets::Target& target) : library_(target) {}
  std::string name() const override { return "library"; }
  std::vector<loop::Proposal> propose(const loop::ProposalContext& ctx) override {
    const int now = ++asking_;
    for (int most = most_at_once.load(); now > most;) {
      if (most_at_once.compare_exchange_weak(most, now)) break;
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(300));
    auto proposals = library_.propose(ctx);
    --asking_;
    return proposals;
  }
  std::atomic<int> most_at_once{0};

 private:
  loop::LibraryProposer library_;
  std::atomic<int> asking_{0};
};

class RoundsAtOnceTest : public ::testing::Test {
 protected:
  // A copy of packs/standin whose device never fails a job, with `budget` as its [budget].
  std::unique_ptr<CommandTarget> pack(const std::string& budget) {
    const fs::path where = dir_.path() / "pack";
    fs::copy(fs::path(HEADWAY_SOURCE_DIR) / "packs/standin", where, fs::copy_options::recursive);
    std::stringstream text;
    text << std::ifstream(where / "target.toml").rdbuf();
    std::string manifest = text.str();
    for (const auto& [from, to] : {std::pair<std::string, std::string>{
                                       "STANDIN_FAIL_RATE = \"0.05\"", "STANDIN_FAIL_RATE = \"0\""},
                                   {"jobs = 0 ", budget + " "}}) {
      const size_t at = manifest.find(from);
      EXPECT_NE(at, std::string::npos) << from;
      if (at != std::string::npos) manifest.replace(at, from.size(), to);
    }
    std::ofstream(where / "target.toml") << manifest;
    auto t = std::make_unique<CommandTarget>((where / "target.toml").string());
    EXPECT_TRUE(t->identity().found) << t->identity().error;
    return t;
  }

  std::shared_ptr<pool::DevicePool> workers(int n) {
    auto started = pool::testing::start_process_pool(processes_, n, dir_.path() / "pool");
    if (!started) throw std::runtime_error(started.error().message);
    return *started;
  }

  // Runs the loop on the three kernels with a round per worker at once; skips without a sandbox.
  loop::OptimizeSummary optimize(CommandTarget& target, double budget_s) {
    loop::OptimizeOptions o;
    o.target = &target;
    o.budget = std::chrono::duration<double>(budget_s);
    o.concurrent_rounds = 3;
    o.baseline_readings = 3;
    o.lint = [this](const std::string&) -> std::optional<std::string> {
      ++linted_;  // the hook is called one at a time (holding the run's lock)
      return std::nullopt;
    };
    SlowLibrary library(target);
    const auto summary = loop::optimize(ws_, library, o, [this](const loop::Progress& p) {
      std::lock_guard lock(lines_mutex_);
      lines_.push_back({p.kernel, p.stage});
      if (p.stage == "screen") kernels_screened_.insert(p.kernel);
      if (p.stage == "resumed") budget_left_at_resume_ = p.budget_left_s;
    });
    proposals_at_once_ = library.most_at_once;
    return summary;
  }

  // Per kernel: heads after the baseline, and candidates the acceptance test decided.
  struct Decided {
    int64_t heads = 0;
    int64_t tests = 0;
  };
  Decided decided() {
    Decided d;
    for (const char* name : {"qkv", "attn_out", "ffn"}) {
      auto tree = trees::DesignTree::open(ws_, name);
      EXPECT_TRUE(tree.ok()) << name;
      if (!tree.ok()) continue;
      const auto heads = static_cast<int64_t>(tree->head_history().size()) - 1;
      const auto n = tree->count_by_status();
      d.heads += heads;
      d.tests += heads + n.at(trees::NodeStatus::kSlower) + n.at(trees::NodeStatus::kSame) +
                 n.at(trees::NodeStatus::kInconclusive);
    }
    return d;
  }

  store::TestTempDir dir_;
  store::Workspace ws_ = store::Workspace::create(dir_.path() / "ws").value();
  std::shared_ptr<pool::testing::Processes> processes_ =
      std::make_shared<pool::testing::Processes>();
  int linted_ = 0;
  int proposals_at_once_ = 0;
  std::mutex lines_mutex_;
  std::vector<std::pair<std::string, std::string>> lines_;  // per progress line: kernel, stage
  std::set<std::string> kernels_screened_;
  double budget_left_at_resume_ = -1.0;  // none: no "resumed" line
};

TEST_F(RoundsAtOnceTest, ADeviceThatStopsInOneRoundEndsTheRunAndKeepsTheOthersDecisions) {
  auto target = pack("jobs = 150");
  target->use_pool(workers(3));
  loop::OptimizeSummary s;
  try {
    s = optimize(*target, 120.0);
  } catch (const sandbox::Unavailable& e) {
    GTEST_SKIP() << "no sandbox: " << e.what();
  }
  EXPECT_FALSE(s.device_stopped.empty()) << "the job budget ran out";
  EXPECT_FALSE(s.budget_spent);
  EXPECT_EQ(s.most_rounds_at_once, 3);
  const Decided d = decided();
  EXPECT_EQ(d.heads, s.accepted);
  EXPECT_EQ(d.tests, s.tests);
  EXPECT_LE(target->jobs()->stats().jobs, 150);
}

TEST_F(RoundsAtOnceTest, KernelsAdvanceAtOnceAndAPauseWaitsForEveryRoundInFlight) {
  auto target = pack("jobs = 0");
  const auto devices = workers(3);
  target->use_pool(devices);
  loop::OptimizeSummary s;
  std::string error;
  std::atomic<bool> ended{false};
  std::thread run([&] {
    try {
      s = optimize(*target, 20.0);
    } catch (const std::exception& e) {
      error = e.what();
    }
    ended = true;
  });
  // Once a round is in its acceptance test, another process (a migration) asks for a pause.
  std::string testing;
  const auto kernel_testing = [&] {
    std::lock_guard lock(lines_mutex_);
    for (const auto& [kernel, stage] : lines_) {
      if (stage == "acceptance test") return kernel;
    }
    return std::string();
  };
  while (!ended && (testing = kernel_testing()).empty())
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  if (ended) {
    run.join();
    if (error.find("sandbox") != std::string::npos) GTEST_SKIP() << error;
    FAIL() << "the run ended before a round reached its acceptance test: " << error;
  }
  auto other = store::Workspace::open(dir_.path() / "ws").value();
  auto pause =
      loop::WorkspacePause::acquire(other, "migrate", "test", std::chrono::seconds(60), nullptr);
  ASSERT_TRUE(pause) << pause.error().message;
  const int64_t jobs = devices->stats().jobs;
  EXPECT_EQ(devices->stats().running, 0) << "every round in flight ended first";
  std::this_thread::sleep_for(std::chrono::seconds(1));
  EXPECT_EQ(devices->stats().jobs, jobs) << "no job ran while paused";
  {
    std::lock_guard lock(lines_mutex_);
    EXPECT_EQ(lines_.back().second, "paused");
    // The test under way when the pause was asked for ended before it: its outcome came first.
    bool testing_seen = false, decided = false;
    for (const auto& [kernel, stage] : lines_) {
      if (kernel != testing) continue;
      testing_seen = testing_seen || stage == "acceptance test";
      decided =
          decided ||
          (testing_seen &&
           std::set<std::string>{"FASTER", "SLOWER", "SAME", "INCONCLUSIVE"}.count(stage) > 0);
    }
    EXPECT_TRUE(decided) << testing << "'s acceptance test did not end before the pause";
  }
  pause->release();
  run.join();
  ASSERT_TRUE(error.empty()) << error;
  ASSERT_GE(budget_left_at_resume_, 0.0) << "the run resumed";
  // Waiting for the rounds in flight spends budget (pausing does not): on a loaded machine that
  // can be all of it, and then the run ends at once.
  if (budget_left_at_resume_ > 3.0) {
    EXPECT_GT(devices->stats().jobs, jobs) << "rounds went on";
  }
  // Three rounds at once, each asking for its proposals on its own thread.
  EXPECT_EQ(s.most_rounds_at_once, 3);
  EXPECT_EQ(kernels_screened_, (std::set<std::string>{"qkv", "attn_out", "ffn"}));
  EXPECT_GE(proposals_at_once_, 2);
  EXPECT_GT(linted_, 0);
  for (const auto& w : devices->workers()) EXPECT_GT(w.jobs, 0) << w.name;
  // What the rounds counted on their threads is what their connections stored.
  const Decided d = decided();
  EXPECT_EQ(d.heads, s.accepted);
  EXPECT_EQ(d.tests, s.tests);
}

}  // namespace
}  // namespace headway::command
