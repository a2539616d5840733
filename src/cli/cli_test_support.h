#pragma once
// For tests: runs the built headway (HEADWAY_BINARY) as a user does, keeping its standard output
// and standard error apart, so that a test can parse stdout alone.
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <fstream>
#include <functional>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include "common/subprocess.h"
#include "store/test_temp_dir.h"

namespace headway::cli {

struct CliRun {
  int exit_code = -1;   // -1 when it did not exit normally (see `problem`)
  std::string out;      // standard output
  std::string err;      // standard error
  std::string problem;  // why it did not run or exit: empty when it did
};

inline std::string file_text(const std::filesystem::path& path) {
  std::ifstream in(path, std::ios::binary);
  std::ostringstream text;
  text << in.rdbuf();
  return text.str();
}

// Runs `program args...` in cwd (empty: this process's) with stdout and stderr in separate files.
inline CliRun run_split(const std::string& program, const std::vector<std::string>& args,
                        const std::string& cwd = "", double timeout_seconds = 120.0) {
  store::TestTempDir files;
  const auto out = files.path() / "out";
  const auto err = files.path() / "err";
  std::vector<std::string> argv = {
      "sh",   "-c",         "out=$1 err=$2; shift 2; exec \"$@\" >\"$out\" 2>\"$err\"",
      "sh",   out.string(), err.string(),
      program};
  argv.insert(argv.end(), args.begin(), args.end());
  const ProcessResult r = run_process(argv, timeout_seconds, cwd);
  CliRun run;
  run.out = file_text(out);
  run.err = file_text(err);
  if (!r.started) {
    run.problem = "did not start: " + r.error;
  } else if (r.timed_out || r.signal != 0) {
    run.problem = r.timed_out ? "timed out" : "killed by " + signal_name(r.signal);
  } else {
    run.exit_code = r.exit_code;
  }
  if (!r.output.empty()) run.problem += " (sh: " + r.output + ")";
  return run;
}

inline CliRun run_headway(const std::vector<std::string>& args, const std::string& cwd = "",
                          double timeout_seconds = 120.0) {
  return run_split(HEADWAY_BINARY, args, cwd, timeout_seconds);
}

// The built headway run with args in cwd (empty: this process's), its standard output and error
// together in ProcessResult::output.
inline ProcessResult run_headway_merged(std::vector<std::string> args, const std::string& cwd = "",
                                        double timeout_seconds = 120.0) {
  args.insert(args.begin(), HEADWAY_BINARY);
  return run_process(args, timeout_seconds, cwd);
}

// The built headway running in the background with its standard output (and, with
// merge_stderr, its standard error) on a pipe the test reads while it runs; standard error
// otherwise goes to a file. Killed (SIGKILL) and reaped by the destructor when still running.
class PipedHeadway {
 public:
  PipedHeadway(const std::vector<std::string>& args, const std::string& cwd = "",
               bool merge_stderr = false) {
    int fds[2];
    if (pipe2(fds, O_CLOEXEC) != 0) return;
    const std::string err = (files_.path() / "err").string();
    posix_spawn_file_actions_t actions;
    posix_spawn_file_actions_init(&actions);
    if (!cwd.empty()) posix_spawn_file_actions_addchdir_np(&actions, cwd.c_str());
    posix_spawn_file_actions_adddup2(&actions, fds[1], STDOUT_FILENO);
    if (merge_stderr) {
      posix_spawn_file_actions_adddup2(&actions, fds[1], STDERR_FILENO);
    } else {
      posix_spawn_file_actions_addopen(&actions, STDERR_FILENO, err.c_str(),
                                       O_WRONLY | O_CREAT | O_TRUNC, 0644);
    }
    posix_spawn_file_actions_addopen(&actions, STDIN_FILENO, "/dev/null", O_RDONLY, 0);
    std::vector<std::string> argv = {HEADWAY_BINARY};
    argv.insert(argv.end(), args.begin(), args.end());
    std::vector<char*> cargv;
    for (auto& a : argv) cargv.push_back(a.data());
    cargv.push_back(nullptr);
    const int rc = posix_spawn(&pid_, HEADWAY_BINARY, &actions, nullptr, cargv.data(), environ);
    posix_spawn_file_actions_destroy(&actions);
    ::close(fds[1]);
    if (rc != 0) {
      ::close(fds[0]);
      pid_ = -1;
      return;
    }
    out_fd_ = fds[0];
  }
  PipedHeadway(const PipedHeadway&) = delete;
  PipedHeadway& operator=(const PipedHeadway&) = delete;
  ~PipedHeadway() {
    if (pid_ > 0 && !exited_) {
      ::kill(pid_, SIGKILL);
      int status = 0;
      waitpid(pid_, &status, 0);
    }
    if (out_fd_ >= 0) ::close(out_fd_);
  }

  bool started() const { return pid_ > 0; }
  pid_t pid() const { return pid_; }
  // What it has written to the pipe so far (read_for/read_until add to it).
  const std::string& out() const { return out_; }
  std::string err() const { return file_text(files_.path() / "err"); }

  // Reads the pipe until done(out()) holds, the pipe closes, or `seconds` pass; done's value.
  bool read_until(const std::function<bool(const std::string&)>& done, double seconds) {
    const auto until = std::chrono::steady_clock::now() + std::chrono::duration<double>(seconds);
    while (!done(out_)) {
      const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(
          until - std::chrono::steady_clock::now());
      if (left.count() <= 0 || out_fd_ < 0) return false;
      pollfd p{out_fd_, POLLIN, 0};
      if (poll(&p, 1, static_cast<int>(left.count())) <= 0) continue;
      char buf[4096];
      const ssize_t n = ::read(out_fd_, buf, sizeof buf);
      if (n <= 0) {
        ::close(out_fd_);
        out_fd_ = -1;
        return done(out_);
      }
      out_.append(buf, static_cast<size_t>(n));
    }
    return true;
  }
  // True while the process has not exited (reaping it when it has).
  bool running() {
    if (exited_ || pid_ <= 0) return false;
    int status = 0;
    if (waitpid(pid_, &status, WNOHANG) == pid_) finish(status);
    return !exited_;
  }
  // Reads the pipe to its end and waits up to `seconds` for the exit; the exit code, -1 when it
  // did not exit normally in time.
  int wait(double seconds) {
    read_until([](const std::string&) { return false; }, seconds);
    const auto until = std::chrono::steady_clock::now() + std::chrono::duration<double>(seconds);
    while (running() && std::chrono::steady_clock::now() < until)
      std::this_thread::sleep_for(std::chrono::milliseconds(20));
    return exited_ ? exit_code_ : -1;
  }
  void signal(int sig) const {
    if (pid_ > 0) ::kill(pid_, sig);
  }

 private:
  void finish(int status) {
    exited_ = true;
    exit_code_ = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
  }

  store::TestTempDir files_;
  pid_t pid_ = -1;
  int out_fd_ = -1;
  std::string out_;
  bool exited_ = false;
  int exit_code_ = -1;
};

}  // namespace headway::cli
