#include "common/subprocess.h"

#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cstring>
#include <filesystem>
#include <optional>
#include <string_view>
#include <thread>

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
    if (limits && !sandbox::apply_limits(*limits)) fail(ChildFailure::kLimits);
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

  const auto deadline =
      std::chrono::steady_clock::now() + std::chrono::duration<double>(timeout_seconds);
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

namespace {

// The inherited environment with `vars` set over it (the last of the same name wins).
std::vector<std::string> child_environment(
    const std::vector<std::pair<std::string, std::string>>& vars) {
  auto set_later = [&](std::string_view name, size_t from) {
    for (size_t i = from; i < vars.size(); ++i) {
      if (vars[i].first == name) return true;
    }
    return false;
  };
  std::vector<std::string> env;
  for (char** e = environ; e != nullptr && *e != nullptr; ++e) {
    const std::string_view entry(*e);
    if (!set_later(entry.substr(0, entry.find('=')), 0)) env.emplace_back(entry);
  }
  for (size_t i = 0; i < vars.size(); ++i) {
    if (!set_later(vars[i].first, i + 1)) env.push_back(vars[i].first + "=" + vars[i].second);
  }
  return env;
}

// True once the process has exited; it stays unreaped (a zombie), so its pid, which is also its
// process group's id, cannot be reused.
bool has_exited(pid_t pid) {
  siginfo_t info{};
  return waitid(P_PID, static_cast<id_t>(pid), &info, WEXITED | WNOHANG | WNOWAIT) == 0 &&
         info.si_pid == pid;
}

}  // namespace

CommandResult run_command(const CommandSpec& spec) {
  CommandResult result;
  if (spec.argv.empty()) {
    result.error = "no command";
    return result;
  }
  const std::string stdin_path = spec.stdin_path.empty() ? "/dev/null" : spec.stdin_path;
  const int in_fd = open(stdin_path.c_str(), O_RDONLY | O_CLOEXEC);
  if (in_fd < 0) {
    result.error = "cannot open " + stdin_path + ": " + std::strerror(errno);
    return result;
  }
  int out_pipe[2] = {-1, -1}, err_pipe[2] = {-1, -1}, fail_pipe[2] = {-1, -1};
  auto close_all = [&] {
    for (int fd :
         {in_fd, out_pipe[0], out_pipe[1], err_pipe[0], err_pipe[1], fail_pipe[0], fail_pipe[1]}) {
      if (fd >= 0) close(fd);
    }
  };
  if (pipe2(out_pipe, O_CLOEXEC) != 0 || pipe2(err_pipe, O_CLOEXEC) != 0 ||
      pipe2(fail_pipe, O_CLOEXEC) != 0) {
    result.error = std::strerror(errno);
    close_all();
    return result;
  }
  // Built before fork: the child of a multi-threaded process may not allocate.
  std::vector<char*> args;
  for (const auto& a : spec.argv) args.push_back(const_cast<char*>(a.c_str()));
  args.push_back(nullptr);
  const std::vector<std::string> env = child_environment(spec.environment);
  std::vector<char*> envp;
  for (const auto& e : env) envp.push_back(const_cast<char*>(e.c_str()));
  envp.push_back(nullptr);

  const pid_t pid = fork();
  if (pid == 0) {
    setpgid(0, 0);
    sigset_t none;
    sigemptyset(&none);
    sigprocmask(SIG_SETMASK, &none, nullptr);
    struct sigaction dfl {};
    dfl.sa_handler = SIG_DFL;
    sigaction(SIGPIPE, &dfl, nullptr);
    dup2(in_fd, 0);
    dup2(out_pipe[1], 1);
    dup2(err_pipe[1], 2);
    auto fail = [&](ChildFailure::Stage stage) {
      const ChildFailure f{stage, errno};
      (void)!write(fail_pipe[1], &f, sizeof f);
      _exit(127);
    };
    if (!spec.cwd.empty() && chdir(spec.cwd.c_str()) != 0) fail(ChildFailure::kChdir);
    execvpe(args[0], args.data(), envp.data());
    fail(ChildFailure::kExec);
  }
  for (int* fd : {&out_pipe[1], &err_pipe[1], &fail_pipe[1]}) {
    close(*fd);
    *fd = -1;
  }
  if (pid < 0) {
    result.error = std::strerror(errno);
    close_all();
    return result;
  }
  ChildFailure failure{};
  const bool exec_failed = read(fail_pipe[0], &failure, sizeof failure) == sizeof failure;

  const auto deadline =
      std::chrono::steady_clock::now() + std::chrono::duration<double>(spec.timeout_seconds);
  auto ms_left = [&] {
    return std::chrono::duration_cast<std::chrono::milliseconds>(deadline -
                                                                 std::chrono::steady_clock::now())
        .count();
  };
  bool exited = false;
  std::optional<std::chrono::steady_clock::time_point> cancelled_at;
  const auto cancel_grace = std::chrono::seconds(5);
  pollfd fds[2] = {{out_pipe[0], POLLIN, 0}, {err_pipe[0], POLLIN, 0}};
  char buf[65536];
  while (fds[0].fd >= 0 || fds[1].fd >= 0) {
    const auto left = ms_left();
    if (left <= 0) break;
    if (!exited && !cancelled_at && spec.cancel && spec.cancel->load()) {
      cancelled_at = std::chrono::steady_clock::now();
      result.cancelled = true;
      kill(-pid, SIGTERM);
    }
    if (cancelled_at && std::chrono::steady_clock::now() - *cancelled_at > cancel_grace) break;
    // Until the command exits, look every 50 ms whether it has (a process it left running may
    // hold the pipes open).
    const int ready = poll(fds, 2, static_cast<int>(exited ? left : std::min<int64_t>(left, 50)));
    if (ready < 0 && errno != EINTR) break;
    for (pollfd& p : fds) {
      if (ready <= 0 || p.fd < 0 || p.revents == 0) continue;
      const ssize_t n = read(p.fd, buf, sizeof buf);
      if (n <= 0) {
        p.fd = -1;  // closed below, with the rest
        continue;
      }
      const std::string_view chunk(buf, static_cast<size_t>(n));
      if (&p == &fds[0]) {
        const size_t room = spec.stdout_limit - std::min(spec.stdout_limit, result.out.size());
        result.out.append(chunk.substr(0, room));
        if (chunk.size() > room) result.out_cut = true;
      } else {
        result.err_tail.append(chunk);
        if (result.err_tail.size() > 2 * spec.stderr_tail + sizeof buf) {
          result.err_tail.erase(0, result.err_tail.size() - spec.stderr_tail);
        }
      }
    }
    if (!exited && has_exited(pid)) {
      exited = true;
      kill(-pid, SIGKILL);  // what it left running
    }
  }
  // The pipes are closed (or the time is up); the command itself may still run.
  while (!exited && !has_exited(pid)) {
    if (cancelled_at && std::chrono::steady_clock::now() - *cancelled_at > cancel_grace) break;
    if (!cancelled_at && spec.cancel && spec.cancel->load()) {
      cancelled_at = std::chrono::steady_clock::now();
      result.cancelled = true;
      kill(-pid, SIGTERM);
    }
    if (ms_left() <= 0) {
      result.timed_out = true;
      break;
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(5));
  }
  kill(-pid, SIGKILL);
  kill(pid, SIGKILL);
  close_all();
  if (result.err_tail.size() > spec.stderr_tail) {
    result.err_tail.erase(0, result.err_tail.size() - spec.stderr_tail);
  }
  int status = 0;
  while (waitpid(pid, &status, 0) < 0 && errno == EINTR) {
  }
  if (exec_failed) {
    const bool chdir_failed = failure.stage == ChildFailure::kChdir;
    result.error = (chdir_failed ? "cannot enter " + spec.cwd : "cannot run " + spec.argv[0]) +
                   ": " + std::strerror(failure.error);
    return result;
  }
  result.started = true;
  if (WIFEXITED(status)) result.exit_code = WEXITSTATUS(status);
  if (WIFSIGNALED(status) && !result.timed_out) result.signal = WTERMSIG(status);
  return result;
}

std::filesystem::path own_executable() {
  std::error_code ec;
  auto self = std::filesystem::read_symlink("/proc/self/exe", ec);
  return ec ? std::filesystem::path() : self;
}

}  // namespace headway
