// `headway status --watch` and line-buffered output, as a user sees them: the built headway in
// real processes, its standard output a pipe read while it runs.
#include <fcntl.h>
#include <fmt/format.h>
#include <gtest/gtest.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cstring>
#include <nlohmann/json.hpp>
#include <set>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include "cli/cli_test_support.h"
#include "loop/run_record.h"
#include "store/test_temp_dir.h"

namespace headway::cli {
namespace {

namespace fs = std::filesystem;

// A stand-in for a running optimize: a child process that writes the workspace's run record and
// keeps it until end() (it then exits, deleting it) or kill() (it dies, leaving it stale).
class FakeRun {
 public:
  explicit FakeRun(const fs::path& workspace) {
    int go[2], ready[2];
    // Close-on-exec: the headway processes the test starts later must not hold the ends open.
    if (pipe2(go, O_CLOEXEC) != 0 || pipe2(ready, O_CLOEXEC) != 0) return;
    pid_ = fork();
    if (pid_ == 0) {
      ::close(go[1]);
      ::close(ready[0]);
      char c = 0;
      {
        auto ws = store::Workspace::open(workspace);
        if (!ws) _exit(3);
        loop::RunRecorder recorder(ws.value(), 3600);
        loop::Progress p;
        p.kernel = "qkv";
        p.node = 3;
        p.design = "tiled";
        p.stage = "screen";
        p.elapsed_s = 5;
        p.budget_left_s = 3595;
        recorder.update(p);
        if (::write(ready[1], "r", 1) != 1) _exit(4);
        [[maybe_unused]] const ssize_t n = ::read(go[0], &c, 1);  // until the parent's end closes
      }
      _exit(0);
    }
    ::close(go[0]);
    ::close(ready[1]);
    go_ = go[1];
    char c = 0;
    recorded_ = ::read(ready[0], &c, 1) == 1;
    ::close(ready[0]);
  }
  FakeRun(const FakeRun&) = delete;
  FakeRun& operator=(const FakeRun&) = delete;
  ~FakeRun() { kill(); }

  bool recorded() const { return recorded_; }
  pid_t pid() const { return pid_; }
  // Ends the run as an optimize ends: the record goes, then the process.
  void end() {
    if (go_ >= 0) ::close(go_);
    go_ = -1;
    reap();
  }
  // Kills the process: its record stays behind, stale.
  void kill() {
    if (pid_ > 0) ::kill(pid_, SIGKILL);
    end();
  }

 private:
  void reap() {
    if (pid_ <= 0) return;
    int status = 0;
    waitpid(pid_, &status, 0);
    pid_ = -1;
  }

  pid_t pid_ = -1;
  int go_ = -1;
  bool recorded_ = false;
};

// The blocks a watch printed on a pipe: each starts with a line "== <local time>".
std::vector<std::string> blocks_of(const std::string& out) {
  std::vector<std::string> blocks;
  size_t at = 0;
  while ((at = out.find("== ", at)) != std::string::npos) {
    if (at != 0 && out[at - 1] != '\n') {
      at += 3;
      continue;
    }
    const size_t body = out.find('\n', at);
    if (body == std::string::npos) break;
    size_t next = out.find("\n== ", body);
    blocks.push_back(
        out.substr(body + 1, next == std::string::npos ? std::string::npos : next - body - 1));
    at = next == std::string::npos ? out.size() : next + 1;
  }
  return blocks;
}

class StatusWatch : public ::testing::Test {
 protected:
  void SetUp() override {
    const CliRun init = run_headway({"init", ws_.string(), "--target", "sim"});
    ASSERT_EQ(init.exit_code, 0) << init.err;
  }
  std::vector<std::string> watch_args(const std::string& interval = "0.2") const {
    return {"status", "--watch", "--interval", interval, "--workspace", ws_.string()};
  }

  store::TestTempDir dir_;
  fs::path ws_ = dir_.path() / "ws";
};

// The first snapshot arrives on the pipe while the watch still runs (standard output is
// line-buffered on a pipe: a block-buffered one would hold it until exit), and the watch ends by
// itself when the run ends.
TEST_F(StatusWatch, ShowsTheRunWhileItGoesAndEndsWithIt) {
  FakeRun run(ws_);
  ASSERT_TRUE(run.recorded());
  PipedHeadway watch(watch_args());
  ASSERT_TRUE(watch.started());
  const std::string running = fmt::format("running: headway optimize (pid {})", run.pid());
  // The whole first block: the run's line, then the (empty) table.
  ASSERT_TRUE(watch.read_until(
      [&](const std::string& out) {
        return out.find("no kernels yet: run `headway optimize`\n") != std::string::npos;
      },
      60))
      << watch.out() << watch.err();
  EXPECT_TRUE(watch.running()) << "the snapshot came before the watch exited";
  EXPECT_NE(watch.out().find(running), std::string::npos) << watch.out();
  EXPECT_NE(watch.out().find("now qkv node 3 tiled screen"), std::string::npos) << watch.out();
  EXPECT_NE(watch.out().find("of 1h00m left"), std::string::npos) << watch.out();

  run.end();
  EXPECT_EQ(watch.wait(60), 0) << watch.err();
  const auto blocks = blocks_of(watch.out());
  ASSERT_EQ(blocks.size(), 2u) << watch.out() << "\n(one block per change: nothing else changed)";
  EXPECT_NE(blocks[0].find(running), std::string::npos);
  EXPECT_EQ(blocks[1].find("running:"), std::string::npos);
  EXPECT_NE(blocks[1].find("the optimize run ended"), std::string::npos) << blocks[1];
  EXPECT_EQ(watch.err(), "");
}

TEST_F(StatusWatch, ARunKilledOutrightEndsTheWatchToo) {
  FakeRun run(ws_);
  ASSERT_TRUE(run.recorded());
  PipedHeadway watch(watch_args());
  ASSERT_TRUE(watch.read_until(
      [](const std::string& out) { return out.find("running:") != std::string::npos; }, 60))
      << watch.out() << watch.err();
  run.kill();  // its record stays, stale
  EXPECT_EQ(watch.wait(60), 0) << watch.err();
  EXPECT_NE(blocks_of(watch.out()).back().find("the optimize run ended"), std::string::npos)
      << watch.out();
}

TEST_F(StatusWatch, SigtermAndSigintStopItCleanly) {
  FakeRun run(ws_);
  ASSERT_TRUE(run.recorded());
  for (int sig : {SIGTERM, SIGINT}) {
    PipedHeadway watch(watch_args("30"));  // asleep between two looks when the signal comes
    ASSERT_TRUE(watch.read_until(
        [](const std::string& out) { return out.find("running:") != std::string::npos; }, 60))
        << watch.out() << watch.err();
    const auto sent = std::chrono::steady_clock::now();
    watch.signal(sig);
    EXPECT_EQ(watch.wait(20), 0) << strsignal(sig) << ": " << watch.err();
    EXPECT_LT(std::chrono::steady_clock::now() - sent, std::chrono::seconds(15))
        << "not after the 30 s interval";
    EXPECT_EQ(blocks_of(watch.out()).size(), 1u) << watch.out();
    EXPECT_EQ(watch.err(), "");
  }
}

TEST_F(StatusWatch, WithJsonOneObjectALinePerSnapshot) {
  FakeRun run(ws_);
  ASSERT_TRUE(run.recorded());
  std::vector<std::string> args = watch_args();
  args.push_back("--json");
  PipedHeadway watch(args);
  ASSERT_TRUE(watch.read_until(
      [](const std::string& out) { return out.find('\n') != std::string::npos; }, 60))
      << watch.err();
  const auto first = nlohmann::json::parse(watch.out().substr(0, watch.out().find('\n')));
  ASSERT_TRUE(first["run"].is_object()) << first.dump();
  EXPECT_EQ(first["run"]["pid"], run.pid());
  EXPECT_EQ(first["run"]["kernel"], "qkv");
  EXPECT_EQ(first["run"]["stage"], "screen");
  EXPECT_EQ(first["run"]["budget_s"], 3600);
  EXPECT_LE(first["run"]["budget_left_s"].get<double>(), 3595);
  run.end();
  EXPECT_EQ(watch.wait(60), 0) << watch.err();
  std::vector<nlohmann::json> lines;
  std::istringstream in(watch.out());
  for (std::string line; std::getline(in, line);) lines.push_back(nlohmann::json::parse(line));
  ASSERT_EQ(lines.size(), 2u) << watch.out();
  EXPECT_TRUE(lines[1]["run"].is_null());
  EXPECT_FALSE(lines[1]["finishing"].get<bool>());
}

TEST_F(StatusWatch, WithNoRunItPrintsOnceAndExits) {
  const CliRun r = run_headway(watch_args(), "", 60);
  EXPECT_EQ(r.exit_code, 0) << r.err;
  const auto blocks = blocks_of(r.out);
  ASSERT_EQ(blocks.size(), 1u) << r.out;
  EXPECT_NE(blocks[0].find("no optimize is running"), std::string::npos) << r.out;
}

TEST_F(StatusWatch, BadIntervalsAreUsageErrors) {
  CliRun r = run_headway({"status", "--interval", "2", "--workspace", ws_.string()});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_EQ(r.err, "headway: --interval goes with --watch\n");
  for (const char* bad : {"0", "0.01s", "soon", "-1"}) {
    r = run_headway({"status", "--watch", "--interval", bad, "--workspace", ws_.string()});
    EXPECT_EQ(r.exit_code, 2) << bad;
    EXPECT_NE(r.err.find("--interval '"), std::string::npos) << r.err;
    EXPECT_EQ(r.out, "");
  }
}

// The whole thing for real: `headway optimize` on the sim target in one process, `headway status
// --watch` over a pipe in another; the watch shows the run change and ends by itself after it.
// The sim library alone runs out in a fraction of a second; a command agent that takes half a
// second per answer (6 calls) makes the run last seconds.
TEST_F(StatusWatch, FollowsARealOptimizeToItsEnd) {
  PipedHeadway optimize({"optimize", "--workspace", ws_.string(), "--target", "sim", "--kernels",
                         "qkv,attn_out", "--budget", "5m", "--agent",
                         "cmd:sleep 0.5; printf '```\\nsim-x 0.5\\n```\\n'", "--agent-jobs", "1",
                         "--max-calls", "6"});
  ASSERT_TRUE(optimize.started());
  // The watch starts once the run has recorded itself (else it would find no run and exit).
  {
    auto ws = store::Workspace::open(ws_).value();
    const auto until = std::chrono::steady_clock::now() + std::chrono::seconds(60);
    while (!loop::running_optimize(ws) && std::chrono::steady_clock::now() < until)
      std::this_thread::sleep_for(std::chrono::milliseconds(5));
    ASSERT_TRUE(loop::running_optimize(ws)) << optimize.err();
  }
  PipedHeadway watch(watch_args("0.1"));
  EXPECT_EQ(watch.wait(300), 0) << watch.err();
  EXPECT_FALSE(optimize.running()) << "the watch ended before the run";
  EXPECT_EQ(optimize.wait(60), 0) << optimize.err();
  const auto blocks = blocks_of(watch.out());
  ASSERT_GE(blocks.size(), 2u) << watch.out();
  const std::set<std::string> different(blocks.begin(), blocks.end());
  EXPECT_GE(different.size(), 2u);
  const std::string running = fmt::format("running: headway optimize (pid {})", optimize.pid());
  EXPECT_NE(blocks.front().find(running), std::string::npos) << blocks.front();
  EXPECT_NE(blocks.back().find("the optimize run ended"), std::string::npos) << blocks.back();
  // The last snapshot has every kernel, re-measured side by side at the end of the run (*).
  for (const char* k : {"qkv*", "attn_out*"})
    EXPECT_NE(blocks.back().find(k), std::string::npos) << k << "\n" << blocks.back();
}

// `headway ... 2>&1 | cat`: standard output's lines arrive when printed, in order with standard
// error's, not all at the exit.
TEST_F(StatusWatch, OptimizeLinesArriveInOrderOnOnePipe) {
  PipedHeadway optimize({"optimize", "--workspace", ws_.string(), "--target", "sim", "--kernels",
                         "qkv", "--budget", "5m"},
                        "", /*merge_stderr=*/true);
  EXPECT_EQ(optimize.wait(300), 0) << optimize.out();
  const std::string& out = optimize.out();
  const size_t result = out.find("optimize: ");
  const size_t timing = out.find("timing every baseline and head side by side");
  const size_t progress = out.find("] qkv      node");
  ASSERT_NE(result, std::string::npos) << out;
  ASSERT_NE(timing, std::string::npos) << out;
  ASSERT_NE(progress, std::string::npos) << out;
  EXPECT_LT(progress, result) << out;
  EXPECT_LT(result, timing) << out;
  EXPECT_LT(timing, out.find("  qkv      baseline")) << out;
}

}  // namespace
}  // namespace headway::cli
