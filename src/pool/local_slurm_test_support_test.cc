// The local Slurm cluster of tests (local_slurm_test_support.h), on this machine's real daemons:
// it starts with every node idle, runs a batch job, takes it off a node set down, answers after
// its controller restarts, leaves no daemon and no job behind, and two run side by side.
#include "pool/local_slurm_test_support.h"

#include <gtest/gtest.h>
#include <signal.h>
#include <unistd.h>

#include <chrono>
#include <cstdlib>
#include <memory>
#include <set>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include "common/file_io.h"
#include "store/test_temp_dir.h"

namespace headway::pool::testing {
namespace {

namespace fs = std::filesystem;

// True when `condition()` holds within `seconds`, polling every 100 ms.
template <typename F>
bool local_slurm_eventually(F condition, double seconds) {
  const auto until = std::chrono::steady_clock::now() + std::chrono::duration<double>(seconds);
  for (;;) {
    if (condition()) return true;
    if (std::chrono::steady_clock::now() > until) return false;
    std::this_thread::sleep_for(std::chrono::milliseconds(100));
  }
}

bool local_slurm_pid_alive(pid_t pid) { return kill(pid, 0) == 0; }

// The processes whose command line is `sleep SECONDS` (SECONDS given exactly).
int sleeps_of(const std::string& seconds) {
  const std::string wanted = std::string("sleep") + '\0' + seconds + '\0';
  int found = 0;
  std::error_code ec;
  for (const auto& entry : fs::directory_iterator("/proc", ec)) {
    const auto cmdline = read_file(entry.path() / "cmdline");
    if (cmdline && *cmdline == wanted) ++found;
  }
  return found;
}

// The processes whose parent is this process and whose name (/proc/PID/comm) is `name`.
int children_named(const std::string& name) {
  int found = 0;
  std::error_code ec;
  for (const auto& entry : fs::directory_iterator("/proc", ec)) {
    const auto stat = read_file(entry.path() / "stat");
    if (!stat) continue;
    // "PID (COMM) STATE PPID ...": COMM may hold spaces and parentheses, so split at the last ')'.
    const size_t close = stat->rfind(')');
    const size_t open = stat->find('(');
    if (close == std::string::npos || open == std::string::npos) continue;
    std::istringstream rest(stat->substr(close + 1));
    std::string state;
    long parent = 0;
    rest >> state >> parent;
    if (parent == getpid() && stat->substr(open + 1, close - open - 1) == name) ++found;
  }
  return found;
}

// Submits `sbatch -p PARTITION --wrap SCRIPT` in `folder` (where its output file goes) with the
// SLURM_CONF of this process's environment and returns the job id ("" and a test failure when
// sbatch fails).
std::string submit(const fs::path& folder, const std::string& partition,
                   const std::string& script) {
  const ProcessResult r =
      run_process({"sbatch", "--parsable", "-p", partition, "--wrap", script}, 30, folder);
  EXPECT_TRUE(r.ok()) << r.output << r.error;
  return r.ok() ? r.output.substr(0, r.output.find_first_of(";\n")) : "";
}

// True when no process has the pid or it has ended and waits to be reaped (a zombie).
bool local_slurm_pid_gone(pid_t pid) {
  const auto stat = read_file("/proc/" + std::to_string(pid) + "/stat");
  if (!stat) return true;
  const size_t close = stat->rfind(')');
  return close != std::string::npos && stat->compare(close, 3, ") Z") == 0;
}

class LocalSlurmTest : public ::testing::Test {
 protected:
  void SetUp() override {
    if (const std::string why = LocalSlurm::unavailable_reason(); !why.empty()) {
      GTEST_SKIP() << why;
    }
  }
};

TEST_F(LocalSlurmTest, StartsWithEveryNodeIdleInPartitionDev) {
  const auto started = std::chrono::steady_clock::now();
  LocalSlurm slurm(4);
  const double seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count();
  EXPECT_LT(seconds, 30);
  EXPECT_EQ(slurm.idle_nodes(), 4) << slurm.log_tail();
  EXPECT_EQ(slurm.partition(), "dev");
  EXPECT_EQ(slurm.node_names(), (std::vector<std::string>{"dev1", "dev2", "dev3", "dev4"}));
  EXPECT_EQ(slurm.conf(), slurm.folder() / "slurm.conf");
  EXPECT_TRUE(fs::exists(slurm.conf()));
  EXPECT_TRUE(slurm.queue().empty());
  // munged, slurmctld and four slurmd, all alive.
  ASSERT_EQ(slurm.daemon_pids().size(), 6u);
  for (const pid_t pid : slurm.daemon_pids()) EXPECT_TRUE(local_slurm_pid_alive(pid)) << pid;
  EXPECT_EQ(children_named("munged"), 1);
  EXPECT_EQ(children_named("slurmctld"), 1);
  EXPECT_EQ(children_named("slurmd"), 4);

  const CommandResult partitions = slurm.client({"sinfo", "-h", "-o", "%P %D %t"});
  ASSERT_TRUE(partitions.ok()) << partitions.err_tail;
  EXPECT_EQ(partitions.out, "dev* 4 idle\n");
}

TEST_F(LocalSlurmTest, RunsABatchJobAndTakesItOffANodeSetDown) {
  LocalSlurm slurm(4);
  slurm.export_conf();
  const std::string job = submit(slurm.folder(), slurm.partition(), "sleep 30");
  ASSERT_FALSE(job.empty());
  EXPECT_EQ(slurm.queue(), std::vector<std::string>{job});
  ASSERT_TRUE(local_slurm_eventually([&] { return slurm.job_state(job) == "RUNNING"; }, 10))
      << slurm.job_state(job) << "\n"
      << slurm.log_tail();
  const std::string node = slurm.node_of(job);
  const std::set<std::string> nodes = {"dev1", "dev2", "dev3", "dev4"};
  ASSERT_TRUE(nodes.contains(node)) << node;

  slurm.set_node_down(node);
  // Slurm either ends the job (NODE_FAIL) or requeues it: either way it no longer runs there.
  EXPECT_TRUE(local_slurm_eventually(
      [&] {
        const std::string state = slurm.job_state(job);
        return state.empty() || state == "PENDING" || slurm.node_of(job) != node;
      },
      10))
      << slurm.job_state(job) << " on " << slurm.node_of(job);
  const CommandResult down = slurm.client({"sinfo", "-h", "-n", node, "-o", "%t"});
  EXPECT_EQ(down.out, "down\n");  // and it stays down (ReturnToService=1)
  EXPECT_EQ(slurm.idle_nodes(), 3);

  slurm.set_node_up(node);
  EXPECT_TRUE(local_slurm_eventually([&] { return slurm.idle_nodes() == 4; }, 5));
}

TEST_F(LocalSlurmTest, AnswersAfterItsControllerRestartsAndKeepsItsJobs) {
  LocalSlurm slurm(2);
  slurm.export_conf();
  const std::string job = submit(slurm.folder(), slurm.partition(), "sleep 30");
  ASSERT_FALSE(job.empty());
  const pid_t first_controller = slurm.daemon_pids().at(1);

  slurm.restart_controller();
  EXPECT_FALSE(local_slurm_pid_alive(first_controller));
  ASSERT_EQ(slurm.daemon_pids().size(), 5u);  // munged, slurmctld, 2 slurmd, the new slurmctld
  EXPECT_TRUE(local_slurm_pid_alive(slurm.daemon_pids().back()));
  const ProcessResult squeue = run_process({"squeue", "-h", "-o", "%i"}, 30);
  ASSERT_TRUE(squeue.ok()) << squeue.output;
  EXPECT_EQ(squeue.output, job + "\n");  // its state was saved and read back
}

TEST_F(LocalSlurmTest, LeavesNoDaemonNoJobAndNoFolderBehind) {
  setenv("SLURM_CONF", "/before/slurm.conf", 1);
  // A job that runs until the fixture cancels it, told apart from other tests' by its length.
  const std::string seconds = "40." + std::to_string(getpid() % 100000);
  std::vector<pid_t> pids;
  fs::path folder;
  {
    LocalSlurm slurm(2);
    slurm.export_conf();
    EXPECT_EQ(std::string(std::getenv("SLURM_CONF")), slurm.conf().string());
    const std::string job = submit(slurm.folder(), slurm.partition(), "sleep " + seconds);
    ASSERT_TRUE(local_slurm_eventually([&] { return sleeps_of(seconds) == 1; }, 10))
        << slurm.job_state(job);
    slurm.restart_controller();
    pids = slurm.daemon_pids();
    folder = slurm.folder();
  }
  ASSERT_EQ(pids.size(), 5u);
  for (const pid_t pid : pids) EXPECT_FALSE(local_slurm_pid_alive(pid)) << pid;
  EXPECT_TRUE(local_slurm_eventually([&] { return sleeps_of(seconds) == 0; }, 5));
  EXPECT_FALSE(fs::exists(folder));
  EXPECT_EQ(std::string(std::getenv("SLURM_CONF")), "/before/slurm.conf");
  unsetenv("SLURM_CONF");
}

TEST_F(LocalSlurmTest, TwoClustersRunSideBySide) {
  LocalSlurm first(1);
  LocalSlurm second(2);
  EXPECT_NE(first.controller_port(), second.controller_port());
  EXPECT_EQ(first.idle_nodes(), 1);
  EXPECT_EQ(second.idle_nodes(), 2);
  const CommandResult r =
      first.client({"sbatch", "--parsable", "-p", first.partition(), "--wrap", "sleep 30"});
  ASSERT_TRUE(r.ok()) << r.err_tail;
  EXPECT_EQ(first.queue().size(), 1u);
  EXPECT_TRUE(second.queue().empty());
}

TEST_F(LocalSlurmTest, ThrowsWithTheLogsAndStopsWhatItStartedWhenADaemonExits) {
  // A slurmd that exits at once, found before the real one on PATH.
  store::TestTempDir bin;
  write_file(bin.path() / "slurmd",
             "#!/bin/sh\necho 'slurmd stand-in: refusing to start' >&2\nexit 1\n");
  fs::permissions(bin.path() / "slurmd", fs::perms::owner_all);
  const std::string path = std::getenv("PATH") ? std::getenv("PATH") : "/usr/bin:/bin";
  setenv("PATH", (bin.path().string() + ":" + path).c_str(), 1);
  std::string message;
  try {
    LocalSlurm slurm(2);
  } catch (const std::runtime_error& e) {
    message = e.what();
  }
  setenv("PATH", path.c_str(), 1);
  EXPECT_NE(message.find("slurmd-dev"), std::string::npos) << message;
  EXPECT_NE(message.find("exited"), std::string::npos) << message;
  EXPECT_NE(message.find("slurmd stand-in: refusing to start"), std::string::npos) << message;
  for (const char* daemon : {"munged", "slurmctld", "slurmd"}) {
    EXPECT_EQ(children_named(daemon), 0) << daemon;
  }
}

TEST(LocalSlurmArguments, ThrowsWithoutAnyNode) { EXPECT_THROW(LocalSlurm(0), std::runtime_error); }

class LocalSlurmDeathTest : public LocalSlurmTest {};

// A test process that dies without running the destructor leaves nothing running: its watchdog
// kills the daemons and the job and removes the folder.
TEST_F(LocalSlurmDeathTest, LeavesNothingRunningWhenItsProcessAborts) {
  store::TestTempDir scratch;
  const fs::path record = scratch.path() / "record";
  const std::string seconds = "41." + std::to_string(getpid() % 100000);
  EXPECT_DEATH(
      {
        LocalSlurm slurm(2);
        const CommandResult job =
            slurm.client({"sbatch", "-p", slurm.partition(), "--wrap", "sleep " + seconds});
        local_slurm_eventually([&] { return sleeps_of(seconds) == 1; }, 10);
        std::string text = slurm.folder().string() + "\n";
        for (const pid_t pid : slurm.daemon_pids()) text += std::to_string(pid) + "\n";
        write_file(record, text);
        std::abort();
      },
      "");
  const auto text = read_file(record);
  ASSERT_TRUE(text.has_value()) << "the child died before it wrote " << record;
  std::istringstream lines(*text);
  std::string folder;
  std::getline(lines, folder);
  std::vector<pid_t> pids;
  for (std::string line; std::getline(lines, line);) pids.push_back(std::stoi(line));
  ASSERT_EQ(pids.size(), 4u);
  EXPECT_TRUE(local_slurm_eventually(
      [&] {
        for (const pid_t pid : pids) {
          if (!local_slurm_pid_gone(pid)) return false;
        }
        return sleeps_of(seconds) == 0 && !fs::exists(folder);
      },
      10))
      << "sleeps left: " << sleeps_of(seconds) << ", folder left: " << fs::exists(folder);
}

}  // namespace
}  // namespace headway::pool::testing
