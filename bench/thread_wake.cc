// How long a sleeping thread takes to run after it is woken (docs/PERFORMANCE.md, "Waking a
// sleeping thread").
//
// A worker sleeps in std::atomic::wait; the caller sleeps IDLE_US microseconds, stamps the clock,
// bumps a counter and notify_all()s, then spins until the worker has stamped the time it ran.
// 200 wakes per idle time; it prints p10, median and p90 of the wake latency. On a VM whose host
// reports an idle vCPU as preempted, a woken thread can queue behind its waker for a time slice.
//
// Modes (at most one):
//   --hot-before      as headway's runner does before a timed request (harness_pool.h): the
//                     worker is kept off the caller's CPU, the caller wakes it and waits, off
//                     the clock, until it spins; then stamps the clock and posts
//   --pin             the worker pinned to CPU 1, the caller to CPU 0
//   --idle-spinners   a SCHED_IDLE thread spinning on each CPU (the CPUs never halt)
//   --dma-latency     /dev/cpu_dma_latency held at 0 (the CPUs idle by polling; needs root)
//
// Build and run (Linux, a few seconds):
//   g++ -std=c++20 -O2 -Wall -Wextra -pthread bench/thread_wake.cc -o build/bench/thread_wake
//   build/bench/thread_wake [MODE] [IDLE_US...]      (idle times default to 100 300 1000 3000 5000)
// or bench/build.sh, which builds every program here.
#include <fcntl.h>
#include <pthread.h>
#include <sched.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <thread>
#include <vector>

namespace {

using Clock = std::chrono::steady_clock;
constexpr int kWakes = 200;

std::atomic<unsigned> generation{0};
std::atomic<unsigned> wake{0};  // the worker's futex word: changes with a post and with `hot`
std::atomic<bool> hot{false};
std::atomic<bool> spinning{false};
std::atomic<int64_t> woke_at{0};
std::atomic<bool> stop_spinners{false};

int64_t now_ns() {
  return std::chrono::duration_cast<std::chrono::nanoseconds>(Clock::now().time_since_epoch())
      .count();
}

void pin_to(int cpu) {
  cpu_set_t set;
  CPU_ZERO(&set);
  CPU_SET(cpu, &set);
  if (pthread_setaffinity_np(pthread_self(), sizeof set, &set) != 0) {
    std::fprintf(stderr, "cannot pin a thread to CPU %d\n", cpu);
    std::exit(1);
  }
}

// A thread that only runs when nothing else wants its CPU.
void idle_spinner(int cpu) {
  pin_to(cpu);
  sched_param param{};
  if (pthread_setschedparam(pthread_self(), SCHED_IDLE, &param) != 0) {
    std::fprintf(stderr, "cannot set SCHED_IDLE\n");
    std::exit(1);
  }
  while (!stop_spinners.load(std::memory_order_relaxed)) {
  }
}

pthread_t worker_handle;
int worker_off_cpu = -1;

// Every CPU of the process but the caller's for the worker, set again only when the caller moved.
void keep_worker_off_caller() {
  const int cpu = sched_getcpu();
  if (cpu < 0 || cpu == worker_off_cpu) return;
  cpu_set_t others;
  if (sched_getaffinity(0, sizeof others, &others) != 0 || CPU_COUNT(&others) < 2) return;
  CPU_CLR(cpu, &others);
  pthread_setaffinity_np(worker_handle, sizeof others, &others);
  worker_off_cpu = cpu;
}

void bump_wake() {
  wake.fetch_add(1);
  wake.notify_all();
}

// p10, median and p90 of the wake latency in microseconds after `idle_us` of sleep.
void measure(int idle_us, bool hot_before) {
  std::vector<double> us;
  for (int i = 0; i < kWakes; ++i) {
    std::this_thread::sleep_for(std::chrono::microseconds(idle_us));
    woke_at.store(0);
    if (hot_before) {
      keep_worker_off_caller();
      hot.store(true);
      bump_wake();
      while (!spinning.load()) {
      }
    }
    const int64_t t0 = now_ns();
    generation.fetch_add(1);
    bump_wake();
    int64_t t = 0;
    while ((t = woke_at.load()) == 0) {
    }
    us.push_back(static_cast<double>(t - t0) / 1e3);
    if (hot_before) {
      hot.store(false);
      bump_wake();
    }
  }
  std::sort(us.begin(), us.end());
  std::printf("idle %d us: p10 %.1f median %.1f p90 %.1f us\n", idle_us, us[kWakes / 10],
              us[kWakes / 2], us[kWakes * 9 / 10]);
}

}  // namespace

int main(int argc, char** argv) {
  std::string mode;
  std::vector<int> idles;
  for (int i = 1; i < argc; ++i) {
    const std::string arg = argv[i];
    if (arg.rfind("--", 0) == 0) {
      mode = arg;
    } else {
      idles.push_back(std::atoi(argv[i]));
    }
  }
  if (!mode.empty() && mode != "--pin" && mode != "--idle-spinners" && mode != "--dma-latency" &&
      mode != "--hot-before") {
    std::fprintf(stderr,
                 "usage: thread_wake [--hot-before|--pin|--idle-spinners|--dma-latency] "
                 "[IDLE_US...]\n");
    return 2;
  }
  if (idles.empty()) idles = {100, 300, 1000, 3000, 5000};

  int latency_fd = -1;
  if (mode == "--dma-latency") {
    latency_fd = open("/dev/cpu_dma_latency", O_WRONLY);
    const int32_t zero = 0;
    if (latency_fd < 0 || write(latency_fd, &zero, sizeof zero) != sizeof zero) {
      std::perror("/dev/cpu_dma_latency");
      return 1;
    }
  }
  std::vector<std::thread> spinners;
  if (mode == "--idle-spinners") {
    const auto cpus = static_cast<int>(std::thread::hardware_concurrency());
    for (int c = 0; c < cpus; ++c) spinners.emplace_back(idle_spinner, c);
  }
  if (mode == "--pin") pin_to(0);

  std::thread worker([pin = mode == "--pin"] {
    if (pin) pin_to(1);
    for (unsigned seen = 0;;) {
      const unsigned w = wake.load();
      const unsigned g = generation.load();
      if (g != seen) {
        seen = g;
        woke_at.store(now_ns());
        if (seen == ~0u) return;
      } else if (hot.load()) {
        spinning.store(true);
      } else {
        spinning.store(false);
        wake.wait(w);
      }
    }
  });
  worker_handle = worker.native_handle();
  for (const int idle : idles) measure(idle, mode == "--hot-before");
  generation.store(~0u);
  bump_wake();
  worker.join();
  stop_spinners.store(true);
  for (auto& s : spinners) s.join();
  if (latency_fd >= 0) close(latency_fd);
  return 0;
}
