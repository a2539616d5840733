#include "common/subprocess.h"

#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <cstring>

namespace headway {

std::string signal_name(int sig) {
  const char* abbrev = sigabbrev_np(sig);
  return abbrev ? std::string("SIG") + abbrev : "signal " + std::to_string(sig);
}

namespace {

// What the child writes to the error pipe when it cannot exec argv.
struct ChildFailure {
  enum Stage : int { kChdir, kLimits, kExec } stage;
  int error;
};

ProcessResult run(const std::vector<std::string>& argv, double timeout_seconds,
                  const std::string& cwd, const sandbox::Limits* limits) {
  ProcessResult result;
  int out_pipe[2], err_pipe[2];
  if (pipe2(out_pipe, O_CLOEXEC) != 0) {
    result.error = std::strerror(errno);
    return result;
  }
  // err_pipe reports an exec failure: it closes on a successful exec.
  if (pipe2(err_pipe, O_CLOEXEC) != 0) {
    close(out_pipe[0]);
    close(out_pipe[1]);
    result.error = std::strerror(errno);
    return result;
  }
  // Built before fork: the child of a multi-threaded process may not allocate.
  std::vector<char*> args;
  for (const auto& a : argv) args.push_back(const_cast<char*>(a.c_str()));
  args.push_back(nullptr);
  const pid_t pid = fork();
  if (pid == 0) {
    setpgid(0, 0);
    const int devnull = open("/dev/null", O_RDONLY);
    dup2(devnull, 0);
    dup2(out_pipe[1], 1);
    dup2(out_pipe[1], 2);
    auto fail = [&](ChildFailure::Stage stage) {
      const ChildFailure f{stage, errno};
      (void)!write(err_pipe[1], &f, sizeof f);
      _exit(127);
    };
    if (!cwd.empty() && chdir(cwd.c_str()) != 0) fail(ChildFailure::kChdir);
    if (limits && !sandbox::apply_limits(*limits, nullptr)) fail(ChildFailure::kLimits);
    execvp(args[0], args.data());
    fail(ChildFailure::kExec);
  }
  close(out_pipe[1]);
  close(err_pipe[1]);
  if (pid < 0) {
    result.error = std::strerror(errno);
    close(out_pipe[0]);
    close(err_pipe[0]);
    return result;
  }
  ChildFailure failure{};
  const bool exec_failed = read(err_pipe[0], &failure, sizeof failure) == sizeof failure;
  close(err_pipe[0]);

  const auto deadline = std::chrono::steady_clock::now() +
                        std::chrono::duration<double>(timeout_seconds);
  char buf[65536];
  for (;;) {
    const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(
        deadline - std::chrono::steady_clock::now());
    if (left.count() <= 0) {
      result.timed_out = true;
      kill(-pid, SIGKILL);
      kill(pid, SIGKILL);
      break;
    }
    pollfd p{out_pipe[0], POLLIN, 0};
    const int ready = poll(&p, 1, static_cast<int>(left.count()));
    if (ready < 0 && errno == EINTR) continue;
    if (ready <= 0) continue;
    const ssize_t n = read(out_pipe[0], buf, sizeof buf);
    if (n <= 0) break;
    result.output.append(buf, static_cast<size_t>(n));
  }
  close(out_pipe[0]);
  int status = 0;
  while (waitpid(pid, &status, 0) < 0 && errno == EINTR) {
  }
  if (exec_failed) {
    const char* what = failure.stage == ChildFailure::kChdir    ? "cannot enter "
                       : failure.stage == ChildFailure::kLimits ? "cannot set the limits of "
                                                                : "cannot run ";
    result.error = what + (failure.stage == ChildFailure::kChdir ? cwd : argv[0]) + ": " +
                   std::strerror(failure.error);
    return result;
  }
  result.started = true;
  if (WIFEXITED(status)) result.exit_code = WEXITSTATUS(status);
  if (WIFSIGNALED(status) && !result.timed_out) result.signal = WTERMSIG(status);
  return result;
}

}  // namespace

ProcessResult run_process(const std::vector<std::string>& argv, double timeout_seconds,
                          const std::string& cwd) {
  return run(argv, timeout_seconds, cwd, nullptr);
}

ProcessResult run_process(const std::vector<std::string>& argv, double timeout_seconds,
                          const sandbox::Policy& policy) {
  return run(sandbox::wrap(policy, argv), timeout_seconds, "", &policy.limits);
}

}  // namespace headway
