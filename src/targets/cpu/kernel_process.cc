#include "targets/cpu/kernel_process.h"

#include <dlfcn.h>
#include <fcntl.h>
#include <fmt/format.h>
#include <poll.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cstring>
#include <fstream>
#include <limits>
#include <thread>
#include <utility>
#include <vector>

#include "common/subprocess.h"
#include "targets/cpu/cache_latency.h"
#include "targets/cpu/host_abi.h"

namespace headway::cpu {

namespace {

enum : uint32_t { kCmdCall = 1, kCmdCallEvict = 2 };
enum : int32_t { kReplyReady = 0, kReplyDone = 1, kReplyLoadFailed = 2 };

struct Reply {
  int32_t kind;
  int32_t pad;
  double seconds;
  int64_t start_ns;
  char message[480];
};

bool write_all(int fd, const void* data, size_t n) {
  const char* p = static_cast<const char*>(data);
  while (n > 0) {
    const ssize_t w = write(fd, p, n);
    if (w < 0 && errno == EINTR) continue;
    if (w <= 0) return false;
    p += w;
    n -= static_cast<size_t>(w);
  }
  return true;
}

bool read_all(int fd, void* data, size_t n) {
  char* p = static_cast<char*>(data);
  while (n > 0) {
    const ssize_t r = read(fd, p, n);
    if (r < 0 && errno == EINTR) continue;
    if (r <= 0) return false;
    p += r;
    n -= static_cast<size_t>(r);
  }
  return true;
}

uint64_t current_address_space() {
  std::ifstream statm("/proc/self/statm");
  uint64_t pages = 0;
  statm >> pages;
  return pages * static_cast<uint64_t>(sysconf(_SC_PAGESIZE));
}

// Closes every descriptor from 3 up except `a` and `b` (stdin, stdout and stderr stay).
void close_all_descriptors_but(int a, int b) {
  if (a > b) std::swap(a, b);
  auto close_between = [](int lo, int hi) {
    if (lo <= hi) close_range(static_cast<unsigned>(lo), static_cast<unsigned>(hi), 0);
  };
  close_between(3, a - 1);
  close_between(a + 1, b - 1);
  close_between(b + 1, std::numeric_limits<int>::max());
}

// Reads `evict` (one word per cache line) split over one thread per online core, so that the
// caches lose the kernel's data and every core has just been busy when the call starts: on a
// virtual machine an idle vCPU is halted by the host and takes a long time to wake, which a
// multi-threaded kernel would otherwise pay inside its timed call, and only after a flush.
uint64_t evict_on_every_core(const std::vector<uint64_t>& evict) {
  const unsigned cores = std::max(1u, std::thread::hardware_concurrency());
  std::vector<uint64_t> sums(cores, 0);
  auto read_share = [&](unsigned t) {
    const size_t lines = evict.size() / 8;
    uint64_t sum = 0;
    for (size_t line = lines * t / cores; line < lines * (t + 1) / cores; ++line) sum += evict[line * 8];
    sums[t] = sum;
  };
  std::vector<std::thread> helpers;
  for (unsigned t = 1; t < cores; ++t) helpers.emplace_back(read_share, t);
  read_share(0);
  for (auto& h : helpers) h.join();
  uint64_t total = 0;
  for (uint64_t v : sums) total += v;
  return total;
}

[[noreturn]] void runner_main(const KernelContract& kernel, const std::string& so_path,
                              SharedBuffers& buffers, const ProcessLimits& limits, int command_fd,
                              int reply_fd) {
  rlimit core{0, 0};
  setrlimit(RLIMIT_CORE, &core);
  Reply reply{};
  void* handle = dlopen(so_path.c_str(), RTLD_NOW | RTLD_LOCAL);
  void* entry = handle ? dlsym(handle, std::string(host_abi(kernel).entry_symbol).c_str()) : nullptr;
  if (!entry) {
    reply.kind = kReplyLoadFailed;
    const std::string msg = handle ? fmt::format("the source does not define {}", host_abi(kernel).entry_symbol)
                                   : fmt::format("cannot load the built object: {}", dlerror());
    std::snprintf(reply.message, sizeof reply.message, "%s", msg.c_str());
    write_all(reply_fd, &reply, sizeof reply);
    _exit(3);
  }
  const uint64_t evict_bytes = 2 * last_level_cache_bytes();
  std::vector<uint64_t> evict;
  // The limit applies from here on: the runner's own state is already in place.
  rlimit as{current_address_space() + evict_bytes + limits.memory_limit_bytes, RLIM_INFINITY};
  as.rlim_max = as.rlim_cur;
  setrlimit(RLIMIT_AS, &as);
  reply.kind = kReplyReady;
  write_all(reply_fd, &reply, sizeof reply);
  uint32_t cmd;
  volatile uint64_t sink = 0;
  while (read_all(command_fd, &cmd, sizeof cmd)) {
    if (cmd == kCmdCallEvict) {
      if (evict.empty()) evict.resize(evict_bytes / sizeof(uint64_t), 1);
      sink = sink + evict_on_every_core(evict);
    }
    const auto t0 = std::chrono::steady_clock::now();
    host_abi(kernel).invoke(entry, buffers);
    const auto t1 = std::chrono::steady_clock::now();
    reply.kind = kReplyDone;
    reply.seconds = std::chrono::duration<double>(t1 - t0).count();
    reply.start_ns = std::chrono::duration_cast<std::chrono::nanoseconds>(t0.time_since_epoch()).count();
    if (!write_all(reply_fd, &reply, sizeof reply)) break;
  }
  _exit(0);
}

}  // namespace

std::string CallResult::describe() const {
  switch (status) {
    case Status::kOk: return fmt::format("ran in {:.3f} ms", seconds * 1e3);
    case Status::kCrashed: return fmt::format("crashed with {}", signal_name(signal));
    case Status::kExited: return fmt::format("exited with status {} during the call", exit_code);
    case Status::kTimedOut: return message;
    case Status::kMemoryExceeded: return message;
    case Status::kLoadFailed: return message;
  }
  return message;
}

uint64_t last_level_cache_bytes() {
  const OsCacheSizes os = os_cache_sizes();
  const uint64_t largest = std::max({os.l1d, os.l2, os.l3});
  return largest ? largest : (32ull << 20);
}

std::unique_ptr<KernelProcess> KernelProcess::start(const KernelContract& kernel,
                                                    const std::filesystem::path& shared_object,
                                                    SharedBuffers& buffers,
                                                    const ProcessLimits& limits,
                                                    CallResult* failure) {
  int cmd_pipe[2], reply_pipe[2];
  if (pipe2(cmd_pipe, O_CLOEXEC) != 0 || pipe2(reply_pipe, O_CLOEXEC) != 0) {
    failure->status = CallResult::Status::kLoadFailed;
    failure->message = fmt::format("cannot create pipes: {}", std::strerror(errno));
    return nullptr;
  }
  const std::string so = shared_object.string();
  const pid_t parent = getpid();
  const pid_t pid = fork();
  if (pid == 0) {
    // The runner dies with headway, and keeps none of its descriptors but its two pipe ends: a
    // runner left behind must not hold headway's files (the workspace's optimize lock) open.
    prctl(PR_SET_PDEATHSIG, SIGKILL);
    if (getppid() != parent) _exit(1);
    close_all_descriptors_but(cmd_pipe[0], reply_pipe[1]);
    runner_main(kernel, so, buffers, limits, cmd_pipe[0], reply_pipe[1]);
  }
  close(cmd_pipe[0]);
  close(reply_pipe[1]);
  if (pid < 0) {
    close(cmd_pipe[1]);
    close(reply_pipe[0]);
    failure->status = CallResult::Status::kLoadFailed;
    failure->message = fmt::format("cannot fork the runner: {}", std::strerror(errno));
    return nullptr;
  }
  std::unique_ptr<KernelProcess> process(new KernelProcess(pid, cmd_pipe[1], reply_pipe[0], limits));
  // Loading runs static constructors of the candidate: they get the call time limit too.
  pollfd p{process->reply_fd_, POLLIN, 0};
  const int ms = static_cast<int>(limits.call_timeout_seconds * 1e3);
  int ready;
  do {
    ready = poll(&p, 1, ms);
  } while (ready < 0 && errno == EINTR);
  Reply reply{};
  if (ready <= 0) {
    *failure = process->collect_death(true);
    return nullptr;
  }
  if (!read_all(process->reply_fd_, &reply, sizeof reply)) {
    *failure = process->collect_death(false);
    return nullptr;
  }
  if (reply.kind == kReplyLoadFailed) {
    process->collect_death(false);
    failure->status = CallResult::Status::kLoadFailed;
    failure->message = reply.message;
    return nullptr;
  }
  return process;
}

KernelProcess::KernelProcess(pid_t pid, int command_fd, int reply_fd, ProcessLimits limits)
    : pid_(pid), command_fd_(command_fd), reply_fd_(reply_fd), limits_(limits) {}

KernelProcess::~KernelProcess() {
  close(command_fd_);
  close(reply_fd_);
  if (alive_) {
    kill(pid_, SIGKILL);
    int status;
    while (waitpid(pid_, &status, 0) < 0 && errno == EINTR) {
    }
  }
}

CallResult KernelProcess::collect_death(bool timed_out) {
  if (timed_out) kill(pid_, SIGKILL);
  int status = 0;
  rusage usage{};
  while (wait4(pid_, &status, 0, &usage) < 0 && errno == EINTR) {
  }
  alive_ = false;
  CallResult r;
  const uint64_t peak = static_cast<uint64_t>(usage.ru_maxrss) * 1024;
  if (timed_out) {
    r.status = CallResult::Status::kTimedOut;
    r.message = fmt::format("timed out after {:g} s and was killed", limits_.call_timeout_seconds);
  } else if (peak >= limits_.memory_limit_bytes * 9 / 10) {
    r.status = CallResult::Status::kMemoryExceeded;
    r.message = fmt::format("exceeded the memory limit of {} MiB (peak resident {} MiB)",
                            limits_.memory_limit_bytes >> 20, peak >> 20);
  } else if (WIFSIGNALED(status)) {
    r.status = CallResult::Status::kCrashed;
    r.signal = WTERMSIG(status);
  } else {
    r.status = CallResult::Status::kExited;
    r.exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
  }
  death_ = r;
  return r;
}

CallResult KernelProcess::call(bool evict_caches) {
  if (!alive_) return death_;
  const uint32_t cmd = evict_caches ? kCmdCallEvict : kCmdCall;
  if (!write_all(command_fd_, &cmd, sizeof cmd)) return collect_death(false);
  pollfd p{reply_fd_, POLLIN, 0};
  const auto deadline = std::chrono::steady_clock::now() +
                        std::chrono::duration<double>(limits_.call_timeout_seconds);
  for (;;) {
    const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(
                          deadline - std::chrono::steady_clock::now()).count();
    if (left <= 0) return collect_death(true);
    const int ready = poll(&p, 1, static_cast<int>(left));
    if (ready > 0) break;
    if (ready < 0 && errno != EINTR) return collect_death(false);
  }
  Reply reply{};
  if (!read_all(reply_fd_, &reply, sizeof reply)) return collect_death(false);
  CallResult r;
  r.seconds = reply.seconds;
  r.start_ns = reply.start_ns;
  return r;
}

}  // namespace headway::cpu
