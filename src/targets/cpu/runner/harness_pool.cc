#include "targets/cpu/runner/harness_pool.h"

#include <sched.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <thread>

#include "headway/headway_rows.h"

namespace headway::cpu::runner {

namespace {

// A pause is ~30-80 ns, more under a hypervisor. A cold worker spins this long after a job before
// it sleeps (a call may post several jobs); the caller spins this long before it sleeps on the
// workers it waits for.
constexpr int kColdWorkerSpins = 2000;
constexpr int kCallerSpins = 1000;
// A hot worker's pauses between yields of its CPU (some tens of microseconds).
constexpr unsigned kHotSpinsPerYield = 256;
constexpr uint64_t kThreadsMask = 0xff;  // the job word's low bits: the job's thread count

}  // namespace

int HarnessPool::threads_for_this_process() {
  cpu_set_t set;
  CPU_ZERO(&set);
  const int cpus = sched_getaffinity(0, sizeof set, &set) == 0 ? CPU_COUNT(&set) : 1;
  return std::clamp(cpus, 1, kMaxThreads);
}

HarnessPool& HarnessPool::start(int threads) { return *new HarnessPool(threads); }

HarnessPool::HarnessPool(int threads) : workers_(std::clamp(threads, 1, kMaxThreads) - 1) {
  place_away_ = sched_getaffinity(0, sizeof allowed_, &allowed_) == 0 && CPU_COUNT(&allowed_) > 1;
  for (int tid = 1; tid <= workers_; ++tid) {
    std::thread worker([this, tid] { loop(tid); });
    handles_[tid - 1] = worker.native_handle();  // valid while it runs: workers never exit
    worker.detach();
  }
}

std::vector<int> HarnessPool::worker_thread_ids() const {
  while (started_.load(std::memory_order_acquire) < workers_) std::this_thread::yield();
  std::vector<int> ids;
  for (int w = 0; w < workers_; ++w) ids.push_back(kernel_tids_[w].load(std::memory_order_acquire));
  return ids;
}

void HarnessPool::loop(int tid) {
  kernel_tids_[tid - 1].store(static_cast<int>(gettid()), std::memory_order_release);
  started_.fetch_add(1, std::memory_order_acq_rel);
  uint64_t seen = 0;  // the generation at construction: no job is posted before run()
  bool spinning = false;
  int idle_spins = kColdWorkerSpins;  // cold: spins left before sleeping
  unsigned hot_spins = 0;             // hot: spins so far (a yield every kHotSpinsPerYield)
  for (;;) {
    const uint32_t wake = wake_.load(std::memory_order_acquire);
    const uint64_t job = job_.load(std::memory_order_acquire);
    if ((job >> 8) != (seen >> 8)) {
      seen = job;
      // A job this worker takes part in cannot be followed by another before it has finished,
      // so job_fn_ and job_ctx_ are this job's.
      if (tid < static_cast<int>(job & kThreadsMask)) {
        job_fn_(job_ctx_, tid);
        if (pending_.fetch_sub(1, std::memory_order_acq_rel) == 1) pending_.notify_all();
      }
      idle_spins = kColdWorkerSpins;
      continue;
    }
    if (hot_.load(std::memory_order_acquire)) {
      if (!spinning) {
        spinning = true;
        spinning_.fetch_add(1, std::memory_order_acq_rel);
      }
      // Hot, the worker yields its CPU every kHotSpinsPerYield turns: headway's thread, woken by
      // the child's reply while the child's threads spin on every vCPU, would otherwise wait a
      // time slice for one (1-3 ms, docs/PERFORMANCE.md). A yield every turn made jobs wait for
      // the system call and slowed short kernels by a few percent.
      if (++hot_spins % kHotSpinsPerYield == 0) {
        sched_yield();
      } else {
        hw::relax();
      }
      continue;
    }
    if (spinning) {
      spinning = false;
      spinning_.fetch_sub(1, std::memory_order_acq_rel);
      idle_spins = 0;  // told to go cold: sleep now
    }
    if (idle_spins > 0) {
      --idle_spins;
      hw::relax();
      continue;
    }
    wake_.wait(wake, std::memory_order_acquire);
  }
}

void HarnessPool::keep_workers_off_caller() {
  hw::keep_threads_off_caller(handles_, workers_, allowed_, &off_cpu_);
}

int HarnessPool::run(int threads, Job job, void* ctx) {
  if (threads < 1 || threads > this->threads() || job == nullptr) return -1;
  bool idle = false;
  if (!busy_.compare_exchange_strong(idle, true, std::memory_order_acquire)) return -1;
  if (threads > 1) {
    if (place_away_) keep_workers_off_caller();
    job_fn_ = job;
    job_ctx_ = ctx;
    pending_.store(threads - 1, std::memory_order_relaxed);
    const uint64_t generation = (job_.load(std::memory_order_relaxed) >> 8) + 1;
    job_.store((generation << 8) | static_cast<uint64_t>(threads), std::memory_order_release);
    wake_.fetch_add(1, std::memory_order_release);
    wake_.notify_all();  // cheap when no worker sleeps (the library counts waiters)
  }
  job(ctx, 0);
  if (threads > 1) {
    for (int spins = 0; spins < kCallerSpins && pending_.load(std::memory_order_acquire) != 0;
         ++spins)
      hw::relax();
    for (int left; (left = pending_.load(std::memory_order_acquire)) != 0;)
      pending_.wait(left, std::memory_order_acquire);
  }
  busy_.store(false, std::memory_order_release);
  return 0;
}

void HarnessPool::set_hot(bool hot, int wait_us) {
  if (hot && place_away_) keep_workers_off_caller();
  hot_.store(hot, std::memory_order_release);
  wake_.fetch_add(1, std::memory_order_release);
  wake_.notify_all();
  if (!hot || wait_us <= 0) return;
  const auto end = std::chrono::steady_clock::now() + std::chrono::microseconds(wait_us);
  while (spinning_.load(std::memory_order_acquire) < workers_ &&
         std::chrono::steady_clock::now() < end)
    hw::relax();
}

}  // namespace headway::cpu::runner
