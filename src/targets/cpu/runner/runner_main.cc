// headway-runner: the host process that runs inside the sandbox (protocol.h). It
// never loads candidate code itself: for every spawn request it forks a child that does.
//
//   headway-runner --kernel NAME --set-bytes N --sets K --arms A --memory-limit BYTES
// with the descriptors of protocol.h already open.
#include <dlfcn.h>
#include <poll.h>
#include <sched.h>
#include <signal.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/signalfd.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <limits>
#include <memory>
#include <string>
#include <vector>

#include "common/descriptor_passing.h"
#include "headway/headway_kernel.h"
#include "kernels/contract.h"
#include "targets/cpu/host_abi.h"
#include "targets/cpu/runner/harness_pool.h"
#include "targets/cpu/runner/protocol.h"
#include "targets/cpu/runner/syscall_filter.h"

namespace headway::cpu::runner {
namespace {

// The harness's pool, made by the candidate's first hw_parallel_* call: in the child, after the
// system-call filter (threads inherit it; none made earlier would), and only in a child whose
// candidate uses it, so that a single-threaded candidate's child stays single-threaded.
std::atomic<HarnessPool*> started_harness{nullptr};

HarnessPool& harness() {
  static HarnessPool* pool = [] {
    HarnessPool* made = &HarnessPool::start(HarnessPool::threads_for_this_process());
    started_harness.store(made, std::memory_order_release);
    return made;
  }();
  return *pool;
}

// In a one-core child (SpawnRequest::one_core): the threads hw_parallel_threads() reports (the
// CPUs the child had before it was held to one), which hw_parallel_run runs one after another;
// 0 elsewhere. Set before the candidate is loaded, read only by its calls.
int one_core_threads = 0;
std::atomic<bool> one_core_running{false};

// hw_parallel_run in a one-core child: fn(ctx, 0), fn(ctx, 1), ... on the calling thread; -1,
// running nothing, for a thread count out of range or while another run is in progress.
int run_one_after_another(int threads, void (*fn)(void*, int), void* ctx) {
  if (threads < 1 || threads > one_core_threads || one_core_running.exchange(true)) return -1;
  for (int tid = 0; tid < threads; ++tid) fn(ctx, tid);
  one_core_running.store(false);
  return 0;
}

// Holds the process to the CPU it runs on and returns how many it had before; 0 when the
// system refuses.
int hold_to_one_cpu() {
  const int threads = HarnessPool::threads_for_this_process();
  const int cpu = sched_getcpu();
  cpu_set_t one;
  CPU_ZERO(&one);
  CPU_SET(cpu < 0 ? 0 : cpu, &one);
  return sched_setaffinity(0, sizeof one, &one) == 0 ? threads : 0;
}

// How long the request before a timed one waits for the pool's workers to spin.
constexpr int kHotWaitUs = 20'000;
// Polls for the next request between yields of the CPU (some tens of microseconds).
constexpr unsigned kPollsPerYield = 32;

struct Options {
  std::string kernel;
  std::string regions;  // a spec kernel's (cpu::encode_regions); empty: a built-in kernel's
  size_t set_bytes = 0;
  int sets = 1;
  int arms = 1;
  uint64_t memory_limit = 2ull << 30;
  size_t page_bytes = 4096;  // the pages backing the input sets (2 MiB where huge)
};

[[noreturn]] void die(const std::string& message) {
  std::fprintf(stderr, "headway-runner: %s\n", message.c_str());
  _exit(2);
}

Options parse(int argc, char** argv) {
  Options o;
  for (int i = 1; i + 1 < argc; i += 2) {
    const std::string key = argv[i];
    const std::string value = argv[i + 1];
    if (key == "--kernel")
      o.kernel = value;
    else if (key == "--regions")
      o.regions = value;
    else if (key == "--set-bytes")
      o.set_bytes = std::stoull(value);
    else if (key == "--sets")
      o.sets = std::stoi(value);
    else if (key == "--arms")
      o.arms = std::stoi(value);
    else if (key == "--memory-limit")
      o.memory_limit = std::stoull(value);
    else if (key == "--page-bytes")
      o.page_bytes = std::max<size_t>(std::stoull(value), 4096);
    else
      die("unknown argument " + key);
  }
  if (o.kernel.empty() || o.sets < 1 || o.arms < 1)
    die("usage: --kernel NAME [--regions R] --set-bytes N --sets K --arms A");
  return o;
}

// What a child needs of its kernel: the regions and how to call the entry point.
struct RunnerKernel {
  std::vector<RegionSpec> regions;
  cpu::HostAbi abi;
};

int writable_fd(int arm) { return kFirstArmFd + 2 * arm; }
int object_fd(int arm) { return kFirstArmFd + 2 * arm + 1; }

uint64_t address_space_now() {
  std::ifstream statm("/proc/self/statm");
  uint64_t pages = 0;
  statm >> pages;
  return pages * static_cast<uint64_t>(sysconf(_SC_PAGESIZE));
}

[[noreturn]] void load_failed(int channel, const std::string& message) {
  Reply reply;
  reply.op = Op::kLoadFailed;
  std::snprintf(reply.message, sizeof reply.message, "%s", message.c_str());
  send_message(channel, &reply, sizeof reply);
  _exit(3);
}

// The child: everything from here on may run candidate code.
[[noreturn]] void child_main(const Options& o, const RunnerKernel& kernel, int arm, int channel,
                             const SpawnRequest& request) {
  prctl(PR_SET_PDEATHSIG, SIGKILL);
  prctl(PR_SET_DUMPABLE, 0);
  if (request.one_core && (one_core_threads = hold_to_one_cpu()) == 0)
    load_failed(channel,
                std::string("cannot hold the process to one CPU: ") + std::strerror(errno));
  const BufferLayout layout(kernel.regions);
  const size_t input_total = o.set_bytes * static_cast<size_t>(o.sets);
  const size_t slot_bytes = writable_slot_bytes(layout.writable_bytes);
  struct stat writable_stat {};
  fstat(writable_fd(arm), &writable_stat);
  const size_t writable_total = static_cast<size_t>(std::max<off_t>(writable_stat.st_size, 0));
  const int slots = slot_bytes ? static_cast<int>(writable_total / slot_bytes) : 1;
  void* in = mmap(nullptr, input_total, PROT_READ, MAP_SHARED, kInputsFd, 0);
  void* out =
      layout.writable_bytes && slots > 0
          ? mmap(nullptr, writable_total, PROT_READ | PROT_WRITE, MAP_SHARED, writable_fd(arm), 0)
          : nullptr;
  if (in == MAP_FAILED || out == MAP_FAILED)
    load_failed(channel, std::string("cannot map the buffers: ") + std::strerror(errno));
  auto* inputs = static_cast<std::byte*>(in);
  // Fill the page tables of the sets this child will use, then touch one word of every page (of
  // the backing's size, 2 MiB where the sets are on huge pages): no
  // call pays for this process's first touch of a page (a fault, a page-table walk that sets the
  // accessed bit, and under a hypervisor that shadows page tables an exit of microseconds per
  // page: 7 ms for 16 MiB on one VM). The lines this brings into the caches are headway's to
  // flush before it times a call (TimedSession).
  if (request.populate_count > 0) {
    std::byte* first = inputs + o.set_bytes * static_cast<size_t>(request.populate_first);
    const size_t bytes = o.set_bytes * static_cast<size_t>(request.populate_count);
    madvise(first, bytes, MADV_POPULATE_READ);
    uint64_t sum = 0;
    for (size_t off = 0; off < bytes; off += o.page_bytes)
      sum += *reinterpret_cast<const volatile uint64_t*>(first + off);
    // A window need not start on a page: its last page may lie past the last step.
    if (bytes >= 8) sum += *reinterpret_cast<const volatile uint64_t*>(first + bytes - 8);
    asm volatile("" : : "r"(sum));
  }
  if (out) madvise(out, writable_total, MADV_POPULATE_WRITE);
  // Nothing of the candidate is in the process yet: headway reads the CPU time used so far as
  // the runner's own before it lets the load begin.
  Reply prepared;
  prepared.op = Op::kPrepared;
  Command load;
  if (!send_message(channel, &prepared, sizeof prepared)) _exit(0);
  ssize_t got;
  do {
    got = recv(channel, &load, sizeof load, 0);
  } while (got < 0 && errno == EINTR);
  if (got != sizeof load || load.op != Op::kLoad) _exit(0);
  const std::string object = "/proc/self/fd/" + std::to_string(object_fd(arm));
  // Keep only the channel and the object: no other arm's memory or code stays reachable.
  for (int fd = 0; fd < kFirstArmFd + 2 * o.arms; ++fd) {
    if (fd != channel && fd != object_fd(arm) && fd > 2) close(fd);
  }
  rlimit zero{0, 0};
  setrlimit(RLIMIT_CORE, &zero);
  setrlimit(RLIMIT_FSIZE, &zero);  // no file can carry data from one child to the next
  rlimit as{address_space_now() + o.memory_limit, 0};
  as.rlim_max = as.rlim_cur;
  setrlimit(RLIMIT_AS, &as);
  if (const Status filtered = install_syscall_filter(); !filtered) {
    load_failed(channel, filtered.error().message);
  }
  void* handle = dlopen(object.c_str(), RTLD_NOW | RTLD_LOCAL);
  close(object_fd(arm));
  if (!handle) load_failed(channel, std::string("cannot load the built object: ") + dlerror());
  const cpu::HostAbi& abi = kernel.abi;
  void* entry = dlsym(handle, std::string(abi.entry_symbol).c_str());
  if (!entry) load_failed(channel, "the source does not define " + std::string(abi.entry_symbol));
  Reply reply;
  reply.op = Op::kReady;
  if (!send_message(channel, &reply, sizeof reply)) _exit(0);
  reply.op = Op::kDone;
  std::vector<std::unique_ptr<SharedBuffers>> views;
  const std::vector<RegionSpec>& specs = kernel.regions;
  Command command;
  int32_t poll_us = 0;
  for (;;) {
    ssize_t r = -1;
    unsigned polls = 0;
    const auto poll_until = std::chrono::steady_clock::now() + std::chrono::microseconds(poll_us);
    while (poll_us > 0 && std::chrono::steady_clock::now() < poll_until) {
      r = recv(channel, &command, sizeof command, MSG_DONTWAIT);
      if (r >= 0 || (errno != EAGAIN && errno != EINTR)) break;
      // As the harness's hot workers do, now and then: headway's thread may need this CPU.
      if (++polls % kPollsPerYield == 0) {
        sched_yield();
      } else {
        __builtin_ia32_pause();
      }
    }
    while (r < 0 && (poll_us == 0 || errno == EAGAIN || errno == EINTR)) {
      r = recv(channel, &command, sizeof command, 0);
      if (r < 0 && errno != EINTR) break;
    }
    if (r != sizeof command) _exit(0);
    poll_us = std::min(command.poll_after_us, 10'000);
    if (command.op == Op::kCall && command.set >= 0 && command.count >= 1 &&
        command.count <= std::max(slots, 1) && command.set <= o.sets - command.count) {
      views.clear();
      for (int k = 0; k < command.count; ++k) {
        views.push_back(std::make_unique<SharedBuffers>(
            specs, inputs + o.set_bytes * static_cast<size_t>(command.set + k),
            out ? static_cast<std::byte*>(out) + slot_bytes * static_cast<size_t>(k) : nullptr));
      }
      const auto t0 = std::chrono::steady_clock::now();
      for (auto& view : views) abi.invoke(entry, *view);
      const auto t1 = std::chrono::steady_clock::now();
      reply.runner_ns = std::chrono::duration_cast<std::chrono::nanoseconds>(t1 - t0).count();
    } else {
      reply.runner_ns = 0;
    }
    if (command.hot_workers == kStartWorkers && one_core_threads == 0) harness();
    // Read after the call: the candidate's first call may have started the pool.
    if (HarnessPool* pool = started_harness.load(std::memory_order_acquire)) {
      reply.harness_threads = pool->threads();
      if (command.hot_workers) {
        pool->set_hot(true, kHotWaitUs);
      } else {
        pool->set_hot(false);
      }
    }
    if (!send_message(channel, &reply, sizeof reply)) _exit(0);
  }
}

// Receives one spawn request and the child's channel descriptor; -1 at end of input.
int receive_spawn(SpawnRequest* request) {
  int fd = -1;
  const ssize_t r = receive_with_descriptor(kControlFd, request, sizeof *request, &fd);
  if (r <= 0) return -1;
  if (r != sizeof *request || fd < 0) {
    if (fd >= 0) close(fd);
    return -2;
  }
  return fd;
}

void report_exits() {
  for (;;) {
    int status = 0;
    rusage usage{};
    const pid_t pid = wait4(-1, &status, WNOHANG, &usage);
    if (pid <= 0) return;
    ChildEvent event;
    event.op = Op::kExited;
    event.pid = pid;
    event.wait_status = status;
    auto ns = [](const timeval& t) {
      return int64_t{t.tv_sec} * 1'000'000'000 + int64_t{t.tv_usec} * 1000;
    };
    event.cpu_ns = ns(usage.ru_utime) + ns(usage.ru_stime);
    event.max_rss_kib = usage.ru_maxrss;
    send_message(kControlFd, &event, sizeof event);
  }
}

int host_main(int argc, char** argv) {
  const Options o = parse(argc, argv);
  RunnerKernel kernel;
  if (!o.regions.empty()) {
    auto regions = cpu::decode_regions(o.regions);
    if (!regions) die("bad --regions " + o.regions);
    kernel.regions = std::move(*regions);
    kernel.abi = {"hw_" + o.kernel, cpu::invoke_generic, "", false};
  } else {
    const KernelContract* builtin = builtin_kernel(o.kernel);
    if (!builtin) die("unknown kernel " + o.kernel);
    kernel.regions = builtin->regions();
    kernel.abi = cpu::host_abi(*builtin);
  }
  prctl(PR_SET_PDEATHSIG, SIGKILL);
  prctl(PR_SET_DUMPABLE, 0);
  sigset_t chld;
  sigemptyset(&chld);
  sigaddset(&chld, SIGCHLD);
  sigprocmask(SIG_BLOCK, &chld, nullptr);
  const int sigfd = signalfd(-1, &chld, SFD_CLOEXEC);
  if (sigfd < 0) die("cannot watch children");
  for (;;) {
    pollfd fds[2] = {{kControlFd, POLLIN, 0}, {sigfd, POLLIN, 0}};
    if (poll(fds, 2, -1) < 0) {
      if (errno == EINTR) continue;
      die("poll failed");
    }
    if (fds[1].revents & POLLIN) {
      signalfd_siginfo info;
      while (read(sigfd, &info, sizeof info) < 0 && errno == EINTR) {
      }
      report_exits();
    }
    if (!(fds[0].revents & (POLLIN | POLLHUP | POLLERR))) continue;
    SpawnRequest request;
    const int channel = receive_spawn(&request);
    if (channel == -1) return 0;  // headway closed the control socket: the sandbox goes down
    if (channel < 0 || request.op != Op::kSpawn || request.arm >= static_cast<uint32_t>(o.arms))
      die("bad spawn request");
    const pid_t pid = fork();
    if (pid == 0) {
      sigprocmask(SIG_UNBLOCK, &chld, nullptr);
      close(sigfd);
      child_main(o, kernel, static_cast<int>(request.arm), channel, request);
    }
    close(channel);
    ChildEvent event;
    event.op = Op::kSpawned;
    event.arm = request.arm;
    event.pid = pid;
    if (pid < 0) event.op = Op::kExited;
    send_message(kControlFd, &event, sizeof event);
  }
}

}  // namespace
}  // namespace headway::cpu::runner

// The harness's threads for candidates (headway_kernel.h), exported from this executable
// (CMakeLists.txt) so that a loaded candidate's weak references resolve to them.
extern "C" int hw_parallel_threads(void) {
  using namespace headway::cpu::runner;
  return one_core_threads ? one_core_threads : harness().threads();
}
extern "C" int hw_parallel_run(int threads, void (*fn)(void*, int), void* ctx) {
  using namespace headway::cpu::runner;
  return one_core_threads ? run_one_after_another(threads, fn, ctx)
                          : harness().run(threads, fn, ctx);
}

int main(int argc, char** argv) { return headway::cpu::runner::host_main(argc, argv); }
