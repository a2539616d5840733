#include "targets/cpu/runner_host.h"

#include <fcntl.h>
#include <fmt/format.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cstdlib>
#include <cstring>
#include <string>
#include <tuple>
#include <utility>

#include "common/descriptor_passing.h"
#include "common/huge_page_file.h"
#include "common/sandbox.h"
#include "common/subprocess.h"
#include "common/wait_readable.h"
#include "targets/cpu/cache_latency.h"
#include "targets/cpu/host_abi.h"
#include "targets/cpu/runner/syscall_filter.h"

namespace headway::cpu {

namespace {

using runner::ChildEvent;
using runner::Command;
using runner::Op;
using runner::Reply;
using runner::send_message;
using Clock = std::chrono::steady_clock;

CallResult no_runner(std::string message) {
  CallResult r;
  r.status = CallResult::Status::kNoRunner;
  r.message = std::move(message);
  return r;
}

}  // namespace

std::filesystem::path runner_executable() {
  if (const char* env = std::getenv("HEADWAY_RUNNER"); env && *env) return env;
  return own_executable().parent_path() / "headway-runner";
}

std::unique_ptr<RunnerHost> RunnerHost::start(const RunnerSpec& spec, CallResult* failure) {
  const auto runner = runner_executable();
  if (!std::filesystem::exists(runner)) {
    *failure = no_runner(
        fmt::format("the runner {} is missing (build the headway-runner target)", runner.string()));
    return nullptr;
  }
  std::vector<std::string> argv;
  try {
    sandbox::Policy policy;
    policy.read_only.push_back(runner);
    std::vector<std::string> command = {
        runner.string(),
        "--kernel",
        std::string(spec.kernel->name()),
        "--set-bytes",
        std::to_string(spec.set_bytes),
        "--sets",
        std::to_string(spec.sets),
        "--arms",
        std::to_string(spec.objects.size()),
        "--memory-limit",
        std::to_string(spec.limits.memory_limit_bytes),
        "--page-bytes",
        std::to_string(spec.inputs->huge_page_share() == 1.0 ? kHugePageBytes : kPageBytes)};
    // The runner knows only the built-in kernels; a spec kernel's regions travel with it.
    if (!is_builtin_kernel(spec.kernel->name())) {
      command.push_back("--regions");
      command.push_back(encode_regions(spec.kernel->regions()));
    }
    argv = sandbox::wrap(policy, command);
  } catch (const sandbox::Unavailable& e) {
    *failure = no_runner(fmt::format(
        "cannot sandbox candidate code: {} (install bubblewrap, or pass --no-sandbox)", e.what()));
    return nullptr;
  }
  // The descriptors the host gets, in the order of protocol.h: control, inputs, then per arm
  // its writable block and its object.
  int control[2];
  if (socketpair(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0, control) != 0) {
    *failure =
        no_runner(fmt::format("cannot create the runner's socket: {}", std::strerror(errno)));
    return nullptr;
  }
  std::vector<int> passed = {control[1], spec.inputs->open_read_only()};
  for (size_t arm = 0; arm < spec.objects.size(); ++arm) {
    passed.push_back(fcntl(spec.writable[arm]->fd(), F_DUPFD_CLOEXEC, 0));
    passed.push_back(open(spec.objects[arm].c_str(), O_RDONLY | O_CLOEXEC));
  }
  auto close_passed = [&] {
    for (int fd : passed)
      if (fd >= 0) close(fd);
  };
  for (size_t i = 0; i < passed.size(); ++i) {
    if (passed[i] < 0) {
      const std::string what =
          i >= 2 && i % 2 == 1 ? spec.objects[(i - 2) / 2].string() : "the kernel buffers";
      *failure = no_runner(fmt::format("cannot open {}: {}", what, std::strerror(errno)));
      if (i >= 2 && i % 2 == 1) failure->status = CallResult::Status::kLoadFailed;
      close_passed();
      close(control[0]);
      return nullptr;
    }
  }
  const pid_t parent = getpid();
  const pid_t pid = fork();
  if (pid == 0) {
    prctl(PR_SET_PDEATHSIG, SIGKILL);
    if (getppid() != parent) _exit(1);
    // Move every passed descriptor above the target range first, then into place.
    const int high = 1000;
    for (size_t i = 0; i < passed.size(); ++i)
      passed[i] = fcntl(passed[i], F_DUPFD, high + static_cast<int>(i));
    for (size_t i = 0; i < passed.size(); ++i)
      dup2(passed[i], runner::kControlFd + static_cast<int>(i));
    close_range(static_cast<unsigned>(runner::kControlFd + static_cast<int>(passed.size())), ~0u,
                0);
    std::vector<char*> args;
    for (auto& a : argv) args.push_back(a.data());
    args.push_back(nullptr);
    execvp(args[0], args.data());
    _exit(127);
  }
  close_passed();
  if (pid < 0) {
    close(control[0]);
    *failure = no_runner(fmt::format("cannot start the runner: {}", std::strerror(errno)));
    return nullptr;
  }
  return std::unique_ptr<RunnerHost>(new RunnerHost(spec, pid, control[0]));
}

RunnerHost::~RunnerHost() {
  close(control_);  // the host sees the end of its input and exits, its children with it
  kill(pid_, SIGKILL);
  int status;
  while (waitpid(pid_, &status, 0) < 0 && errno == EINTR) {
  }
}

bool RunnerHost::read_event(ChildEvent* event, int timeout_ms) {
  if (wait_readable(control_, timeout_ms) != 1) return false;
  ssize_t r;
  do {
    r = recv(control_, event, sizeof *event, 0);
  } while (r < 0 && errno == EINTR);
  return r == sizeof *event;
}

std::optional<ChildEvent> RunnerHost::wait_exit(int32_t ns_pid, double timeout_seconds) {
  const auto deadline = Clock::now() + std::chrono::duration<double>(timeout_seconds);
  for (;;) {
    if (auto it = exited_.find(ns_pid); it != exited_.end()) {
      const ChildEvent e = it->second;
      exited_.erase(it);
      return e;
    }
    const auto left = std::chrono::duration<double>(deadline - Clock::now()).count();
    ChildEvent event;
    if (left <= 0 || !read_event(&event, poll_timeout_ms(left))) return std::nullopt;
    if (event.op == Op::kExited) exited_[event.pid] = event;
  }
}

std::unique_ptr<RunnerChild> RunnerHost::spawn(int arm, int populate_first, int populate_count,
                                               CallResult* failure, bool one_core) {
  int channel[2];
  if (socketpair(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0, channel) != 0) {
    *failure = no_runner(fmt::format("cannot create a runner channel: {}", std::strerror(errno)));
    return nullptr;
  }
  const int on = 1;
  setsockopt(channel[0], SOL_SOCKET, SO_PASSCRED, &on, sizeof on);
  // Replies carry the time the kernel queued them: headway's reading ends there, whether or not
  // headway is running at that moment (RunnerChild::call).
  setsockopt(channel[0], SOL_SOCKET, SO_TIMESTAMPNS, &on, sizeof on);
  runner::SpawnRequest request;
  request.arm = static_cast<uint32_t>(arm);
  request.populate_first = populate_first;
  request.populate_count = populate_count;
  request.one_core = one_core ? 1 : 0;
  const ssize_t sent = send_with_descriptor(control_, &request, sizeof request, channel[1]);
  close(channel[1]);
  auto host_failed = [&](const std::string& why) {
    close(channel[0]);
    int status = 0;
    const bool ended = waitpid(pid_, &status, WNOHANG) == pid_;
    *failure = no_runner(
        ended && WIFEXITED(status) && WEXITSTATUS(status) != 0
            ? fmt::format(
                  "the runner could not start (exit status {}): is the sandbox usable here?",
                  WEXITSTATUS(status))
            : "the runner " + why);
    return nullptr;
  };
  if (sent != static_cast<ssize_t>(sizeof request)) return host_failed("stopped taking requests");
  ChildEvent event;
  for (;;) {
    if (!read_event(&event, poll_timeout_ms(spec_.limits.call_timeout_seconds)))
      return host_failed("did not answer");
    if (event.op == Op::kSpawned) break;
    if (event.op == Op::kExited && event.pid > 0) exited_[event.pid] = event;
    if (event.op == Op::kExited && event.pid <= 0) return host_failed("could not fork a child");
  }
  std::unique_ptr<RunnerChild> child(new RunnerChild(*this, channel[0], 0, event.pid));
  // The child's first message says it is prepared, before any candidate code is in it (the kernel
  // tells us its pid in our namespace); the CPU it used so far is the runner's own. The second
  // says it loaded.
  Reply reply;
  const auto receive = [&] {
    alignas(cmsghdr) char cred[CMSG_SPACE(sizeof(ucred)) + CMSG_SPACE(sizeof(timespec))] = {};
    iovec riov{&reply, sizeof reply};
    msghdr rmsg{};
    rmsg.msg_iov = &riov;
    rmsg.msg_iovlen = 1;
    rmsg.msg_control = cred;
    rmsg.msg_controllen = sizeof cred;
    const int ready = wait_readable(channel[0], poll_timeout_ms(spec_.limits.call_timeout_seconds));
    ssize_t r = -1;
    if (ready == 1) {
      do {
        r = recvmsg(channel[0], &rmsg, 0);
      } while (r < 0 && errno == EINTR);
    }
    for (cmsghdr* h = CMSG_FIRSTHDR(&rmsg); r > 0 && h; h = CMSG_NXTHDR(&rmsg, h)) {
      if (h->cmsg_level == SOL_SOCKET && h->cmsg_type == SCM_CREDENTIALS && child->pid_ <= 0) {
        ucred u;
        std::memcpy(&u, CMSG_DATA(h), sizeof u);
        child->pid_ = u.pid;
      }
    }
    return std::pair{ready, r};
  };
  auto [ready, r] = receive();
  if (ready == 1 && r == sizeof reply && reply.op == Op::kPrepared && child->pid_ > 0) {
    child->prepared_cpu_seconds_ = std::max(0.0, child->cpu_seconds());
    runner::Command load;
    load.op = Op::kLoad;
    if (runner::send_message(channel[0], &load, sizeof load)) std::tie(ready, r) = receive();
  }
  if (ready != 1) {
    *failure = child->collect_death(ready == 0);
    if (failure->status == CallResult::Status::kTimedOut)
      failure->message =
          fmt::format("did not load within {:g} s", spec_.limits.call_timeout_seconds);
    return nullptr;
  }
  if (r == sizeof reply && reply.op == Op::kLoadFailed) {
    child->collect_death(false);
    failure->status = CallResult::Status::kLoadFailed;
    failure->message = std::string(reply.message, strnlen(reply.message, sizeof reply.message));
    return nullptr;
  }
  if (r != sizeof reply || reply.op != Op::kReady || child->pid_ <= 0) {
    *failure = child->collect_death(false);
    if (failure->status == CallResult::Status::kExited) failure->message = "exited while loading";
    return nullptr;
  }
  return child;
}

}  // namespace headway::cpu
