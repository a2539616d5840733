// The sandbox with the real bwrap and real processes: each test asserts something a broken
// sandbox gets wrong, and where it helps, that the same command does it without the sandbox
// (so the test can tell).
#include "common/sandbox.h"

#include <arpa/inet.h>
#include <gtest/gtest.h>
#include <netinet/in.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <csignal>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <random>
#include <sstream>
#include <thread>

#include "common/subprocess.h"
#include "store/test_temp_dir.h"

namespace headway::sandbox {
namespace {

namespace fs = std::filesystem;
using store::TestTempDir;

// Restores kRequired at the end of a test that switches the mode.
struct ModeGuard {
  explicit ModeGuard(Mode m) { set_mode(m); }
  ~ModeGuard() { set_mode(Mode::kRequired); }
};

ProcessResult sh(const std::string& script, const Policy& policy = {}) {
  return run_process({"sh", "-c", script}, 20.0, policy);
}

// A folder that is neither under /tmp nor a system folder: like a workspace.
class OutsideDir {
 public:
  OutsideDir() {
    std::string pattern = (fs::current_path() / "sandbox-test-XXXXXX").string();
    if (mkdtemp(pattern.data()) == nullptr) throw std::runtime_error("mkdtemp failed");
    path_ = pattern;
  }
  ~OutsideDir() {
    std::error_code ec;
    fs::remove_all(path_, ec);
  }
  const fs::path& path() const { return path_; }

 private:
  fs::path path_;
};

std::string unique_token() {
  std::random_device rd;
  return std::to_string(getpid()) + "-" + std::to_string(rd());
}

class Sandbox : public ::testing::Test {
 protected:
  void SetUp() override {
    set_mode(Mode::kRequired);
    ASSERT_EQ(unavailable_reason(), "") << "bubblewrap must work here (scripts/install-deps.sh)";
  }
};

TEST_F(Sandbox, WrapsInBwrapWithTheIsolatingFlags) {
  const auto argv = wrap({}, {"true"});
  ASSERT_FALSE(argv.empty());
  EXPECT_EQ(fs::path(argv[0]).filename(), "bwrap");
  for (const char* flag : {"--unshare-all", "--die-with-parent", "--new-session", "--clearenv"}) {
    EXPECT_NE(std::find(argv.begin(), argv.end(), flag), argv.end()) << flag;
  }
  EXPECT_EQ(argv.back(), "true");
}

TEST_F(Sandbox, HomeAndWorkspaceAreNotVisible) {
  OutsideDir workspace;
  std::ofstream(workspace.path() / "secret.txt") << "s3cret\n";
  const char* home = std::getenv("HOME");
  ASSERT_TRUE(home && fs::is_directory(home));
  const std::string script = "test -e '" + std::string(home) + "' && echo home-visible; cat '" +
                             (workspace.path() / "secret.txt").string() + "'; ls /";
  const ProcessResult inside = sh(script);
  ASSERT_TRUE(inside.started) << inside.error;
  EXPECT_EQ(inside.output.find("home-visible"), std::string::npos) << inside.output;
  EXPECT_EQ(inside.output.find("s3cret"), std::string::npos) << inside.output;
  EXPECT_NE(inside.output.find("No such file"), std::string::npos) << inside.output;
  // The same script without the sandbox sees both.
  ModeGuard off(Mode::kDisabled);
  const ProcessResult outside = sh(script);
  EXPECT_NE(outside.output.find("s3cret"), std::string::npos) << outside.output;
}

TEST_F(Sandbox, WritesOnlyToTheScratchFolder) {
  TestTempDir scratch;
  OutsideDir workspace;
  Policy policy;
  policy.writable = {scratch.path()};
  policy.read_only = {workspace.path()};
  policy.working_directory = scratch.path();
  const std::string token = unique_token();
  const ProcessResult usr = sh("echo x > /usr/headway-" + token, policy);
  EXPECT_FALSE(usr.ok()) << usr.output;
  EXPECT_FALSE(fs::exists("/usr/headway-" + token));
  const ProcessResult ro = sh("echo x > '" + (workspace.path() / "w").string() + "'", policy);
  EXPECT_FALSE(ro.ok()) << ro.output;
  EXPECT_FALSE(fs::exists(workspace.path() / "w"));
  // Relative to the working directory: the scratch folder.
  const ProcessResult ok = sh("echo written > out.txt", policy);
  EXPECT_TRUE(ok.ok()) << ok.output;
  std::ifstream in(scratch.path() / "out.txt");
  std::string line;
  std::getline(in, line);
  EXPECT_EQ(line, "written");
}

TEST_F(Sandbox, TmpIsPrivate) {
  const std::string token = unique_token();
  const fs::path host_file = fs::temp_directory_path() / ("headway-host-" + token);
  std::ofstream(host_file) << "written-by-the-host\n";
  const fs::path inside_file = fs::path("/tmp") / ("headway-inside-" + token);
  const ProcessResult r = sh("cat '" + host_file.string() + "'; echo inside > '" +
                             inside_file.string() + "' && echo wrote");
  fs::remove(host_file);
  EXPECT_NE(r.output.find("wrote"), std::string::npos) << r.output;
  EXPECT_EQ(r.output.find("written-by-the-host"), std::string::npos) << r.output;
  EXPECT_FALSE(fs::exists(inside_file));
  fs::remove(inside_file);
}

TEST_F(Sandbox, NoNetwork) {
  const int listener = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
  ASSERT_GE(listener, 0);
  sockaddr_in addr{};
  addr.sin_family = AF_INET;
  addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  ASSERT_EQ(bind(listener, reinterpret_cast<sockaddr*>(&addr), sizeof addr), 0);
  ASSERT_EQ(listen(listener, 8), 0);
  socklen_t len = sizeof addr;
  ASSERT_EQ(getsockname(listener, reinterpret_cast<sockaddr*>(&addr), &len), 0);
  const std::string connect =
      "exec 3<>/dev/tcp/127.0.0.1/" + std::to_string(ntohs(addr.sin_port)) + " && echo connected";
  const ProcessResult inside = run_process({"bash", "-c", connect}, 20.0, Policy{});
  EXPECT_FALSE(inside.ok());
  EXPECT_EQ(inside.output.find("connected"), std::string::npos) << inside.output;
  {
    ModeGuard off(Mode::kDisabled);
    const ProcessResult outside = run_process({"bash", "-c", connect}, 20.0, Policy{});
    EXPECT_NE(outside.output.find("connected"), std::string::npos) << outside.output;
  }
  close(listener);
}

// Host pids of processes whose command line is exactly `sleep <arg>`.
std::vector<pid_t> sleepers(const std::string& arg) {
  std::vector<pid_t> out;
  const std::string wanted = std::string("sleep") + '\0' + arg + '\0';
  for (const auto& entry : fs::directory_iterator("/proc")) {
    const std::string name = entry.path().filename();
    if (name.find_first_not_of("0123456789") != std::string::npos) continue;
    std::ifstream in(entry.path() / "cmdline", std::ios::binary);
    std::stringstream text;
    text << in.rdbuf();
    if (text.str() == wanted) out.push_back(std::stoi(name));
  }
  return out;
}

TEST_F(Sandbox, NoProcessOutlivesTheCommand) {
  std::random_device rd;
  const std::string arg = "30" + std::to_string(rd() % 1000) + "." + std::to_string(getpid());
  // Double-forked into a new session, its output away from the pipe: nothing ties it to sh. The
  // pause lets it exec sleep before sh exits.
  const std::string script =
      "(setsid sleep " + arg + " </dev/null >/dev/null 2>&1 &); sleep 0.3; echo started";
  const ProcessResult inside = sh(script);
  ASSERT_TRUE(inside.ok()) << inside.output;
  // The end of the sandbox's PID namespace kills what is left; the kill takes effect within
  // moments, where an escaped sleeper would live on for its 30 s.
  for (int i = 0; i < 100 && !sleepers(arg).empty(); ++i)
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  EXPECT_TRUE(sleepers(arg).empty()) << "a process outlived the sandboxed command";
  ModeGuard off(Mode::kDisabled);
  const ProcessResult outside = sh(script);
  ASSERT_TRUE(outside.ok()) << outside.output;
  const auto left = sleepers(arg);
  EXPECT_FALSE(left.empty()) << "without the sandbox the sleeper survives, so the test can tell";
  for (const pid_t pid : left) kill(pid, SIGKILL);
}

TEST_F(Sandbox, EnvironmentIsClean) {
  setenv("HEADWAY_TEST_API_KEY", "sk-do-not-leak", 1);
  Policy policy;
  policy.environment = {{"CANDIDATE_SETTING", "on"}};
  const ProcessResult r = run_process({"env"}, 20.0, policy);
  unsetenv("HEADWAY_TEST_API_KEY");
  ASSERT_TRUE(r.ok()) << r.output;
  EXPECT_EQ(r.output.find("sk-do-not-leak"), std::string::npos) << r.output;
  EXPECT_NE(r.output.find("CANDIDATE_SETTING=on\n"), std::string::npos) << r.output;
  EXPECT_NE(r.output.find("HOME=/nonexistent\n"), std::string::npos) << r.output;
  EXPECT_NE(r.output.find("PATH=/usr/local/bin:/usr/bin:/bin\n"), std::string::npos) << r.output;
}

TEST_F(Sandbox, FileSizeLimitStopsALargerFile) {
  TestTempDir scratch;
  Policy policy;
  policy.writable = {scratch.path()};
  policy.working_directory = scratch.path();
  policy.limits.file_size_bytes = 1 << 20;
  EXPECT_TRUE(sh("head -c 500000 /dev/zero > small", policy).ok());
  EXPECT_EQ(fs::file_size(scratch.path() / "small"), 500000u);
  const ProcessResult big = sh("head -c 3000000 /dev/zero > big", policy);
  EXPECT_FALSE(big.ok());
  EXPECT_LE(fs::file_size(scratch.path() / "big"), 1u << 20);
}

TEST_F(Sandbox, AddressSpaceLimitFailsALargerAllocation) {
  // dd allocates its block at once: 200 MiB.
  const std::string script = "dd if=/dev/zero of=/dev/null bs=200M count=1 2>&1 && echo allocated";
  Policy policy;
  policy.limits.address_space_bytes = 96ull << 20;
  const ProcessResult limited = sh(script, policy);
  EXPECT_EQ(limited.output.find("allocated"), std::string::npos) << limited.output;
  EXPECT_NE(limited.output.find("memory exhausted"), std::string::npos) << limited.output;
  const ProcessResult unlimited = sh(script);
  EXPECT_NE(unlimited.output.find("allocated"), std::string::npos) << unlimited.output;
}

TEST_F(Sandbox, CpuLimitStopsASpinningCommand) {
  Policy policy;
  policy.limits.cpu_seconds = 1;
  const ProcessResult r = sh("while :; do :; done", policy);
  EXPECT_FALSE(r.timed_out) << "ran its 20 s instead of 1 s of CPU";
  EXPECT_FALSE(r.ok());
}

TEST_F(Sandbox, ApplyLimitsSetsSoftAndHard) {
  // In a child: the limits are this process's for good.
  const pid_t pid = fork();
  if (pid == 0) {
    Limits limits;
    limits.open_files = 17;
    limits.file_size_bytes = 4096;
    if (!apply_limits(limits)) _exit(2);
    rlimit r{};
    getrlimit(RLIMIT_NOFILE, &r);
    if (r.rlim_cur != 17 || r.rlim_max != 17) _exit(3);
    getrlimit(RLIMIT_FSIZE, &r);
    if (r.rlim_cur != 4096 || r.rlim_max != 4096) _exit(4);
    // Raising the hard limit back fails without privileges; as root it may not, so only the soft
    // limit is asserted above.
    _exit(0);
  }
  int status = 0;
  waitpid(pid, &status, 0);
  EXPECT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0) << status;
}

TEST(SandboxDevices, BindsTheDeviceNodesItIsGivenAndNoOthers) {
  if (!unavailable_reason().empty()) GTEST_SKIP() << unavailable_reason();
  // A character device outside the sandbox's minimal /dev, as /dev/nvidia0 is.
  fs::path device;
  for (const char* p :
       {"/dev/loop-control", "/dev/cpu_dma_latency", "/dev/kmsg", "/dev/fuse", "/dev/tty0"}) {
    std::error_code ec;
    if (fs::is_character_file(p, ec)) {
      device = p;
      break;
    }
  }
  if (device.empty()) GTEST_SKIP() << "no spare character device on this machine";
  const std::string test = "test -c " + device.string();
  EXPECT_FALSE(sh(test).ok()) << device << " is visible without a bind";
  Policy policy;
  policy.devices = {device};
  EXPECT_TRUE(sh(test, policy).ok()) << sh(test, policy).output;
}

TEST(SandboxDisabled, RunsWithoutBwrapButWithACleanEnvironment) {
  OutsideDir workspace;
  std::ofstream(workspace.path() / "visible.txt") << "visible\n";
  setenv("HEADWAY_TEST_API_KEY", "sk-do-not-leak", 1);
  const int64_t before = unsandboxed_runs();
  int hook_calls = 0;
  on_first_unsandboxed_run([&] { ++hook_calls; });
  ModeGuard off(Mode::kDisabled);
  Policy policy;
  policy.working_directory = workspace.path();
  const auto argv = wrap(policy, {"true"});
  EXPECT_EQ(std::find(argv.begin(), argv.end(), "--unshare-all"), argv.end());
  EXPECT_EQ(fs::path(argv[0]).filename(), "env");
  const ProcessResult r = run_process({"sh", "-c", "cat visible.txt; env"}, 20.0, policy);
  unsetenv("HEADWAY_TEST_API_KEY");
  EXPECT_TRUE(r.ok()) << r.output;
  EXPECT_NE(r.output.find("visible"), std::string::npos) << r.output;
  EXPECT_EQ(r.output.find("sk-do-not-leak"), std::string::npos) << r.output;
  EXPECT_EQ(unsandboxed_runs(), before + 2);
  EXPECT_EQ(hook_calls, 1);
  on_first_unsandboxed_run(nullptr);
}

TEST(SandboxProbe, ReportsAMissingBwrapInOneLine) {
  const std::string none = probe("");
  EXPECT_NE(none.find("bwrap is not installed"), std::string::npos) << none;
  const std::string missing = probe("/nonexistent/bwrap");
  EXPECT_NE(missing.find("bwrap is not installed"), std::string::npos) << missing;
  EXPECT_NE(missing.find("/nonexistent/bwrap"), std::string::npos) << missing;
  EXPECT_EQ(missing.find('\n'), std::string::npos) << missing;
}

TEST(SandboxProbe, ReportsAFailingBwrapWithItsMessage) {
  TestTempDir dir;
  const fs::path fake = dir.path() / "bwrap";
  std::ofstream(fake)
      << "#!/bin/sh\necho 'bwrap: setting up uid map: Permission denied' >&2\nexit 1\n";
  fs::permissions(fake, fs::perms::owner_all);
  const std::string why = probe(fake.string());
  EXPECT_NE(why.find("setting up uid map: Permission denied"), std::string::npos) << why;
  EXPECT_EQ(why.find('\n'), std::string::npos) << why;
}

TEST(SandboxProbe, HeadwayBwrapNamesTheProgram) {
  const char* old = std::getenv("HEADWAY_BWRAP");
  const std::string saved = old ? old : "";
  setenv("HEADWAY_BWRAP", "/somewhere/else/bwrap", 1);
  EXPECT_EQ(bwrap_program(), "/somewhere/else/bwrap");
  if (old) {
    setenv("HEADWAY_BWRAP", saved.c_str(), 1);
  } else {
    unsetenv("HEADWAY_BWRAP");
  }
  EXPECT_EQ(fs::path(bwrap_program()).filename(), "bwrap");
}

}  // namespace
}  // namespace headway::sandbox
