#pragma once
// The harness's worker threads: the pool a candidate reaches through hw_parallel_run
// (include/headway/headway_kernel.h) in the cpu runner's child. Its workers are headway's code;
// candidate code runs on them only inside run(), which returns when every part has returned.
//
// Between jobs a worker is cold (asleep on a futex) or hot (spinning, ready within microseconds,
// and now and then yielding its CPU to any other thread that waits for one).
// The runner makes the pool hot just before a timed request and cold before it replies
// (protocol.h, Command::hot_workers), so that a kernel's second thread never pays a wake inside
// the clock (docs/PERFORMANCE.md, "Waking a sleeping thread") and no thread of the process runs
// once a call has returned. Workers are kept off the CPU of the thread that posts a job.
#include <pthread.h>
#include <sched.h>

#include <atomic>
#include <cstdint>
#include <vector>

namespace headway::cpu::runner {

class HarnessPool {
 public:
  static constexpr int kMaxThreads = 64;
  using Job = void (*)(void* ctx, int tid);

  // A pool of `threads` threads, the caller included (clamped to [1, kMaxThreads]); its workers
  // start cold. Workers never exit, so the pool is never freed: it lives as long as the process.
  static HarnessPool& start(int threads);
  HarnessPool(const HarnessPool&) = delete;
  HarnessPool& operator=(const HarnessPool&) = delete;

  // One per CPU the calling thread may run on (in the runner's child, the process's), at most
  // kMaxThreads.
  static int threads_for_this_process();

  int threads() const { return workers_ + 1; }
  // job(ctx, tid) for every tid in [0, threads): tid 0 on the calling thread, the others on
  // workers; returns 0 once all have returned. -1, running nothing, when threads is outside
  // [1, threads()] or another thread's run() is in progress.
  int run(int threads, Job job, void* ctx);
  // Hot: workers spin between jobs until set_hot(false); set_hot(true) returns once every worker
  // spins or `wait_us` has passed. Cold: workers sleep once they see it (within microseconds).
  void set_hot(bool hot, int wait_us = 0);
  int spinning_workers() const { return spinning_.load(std::memory_order_acquire); }
  // The kernel thread id of each worker, in tid order (1, 2, ...), once it has started.
  std::vector<int> worker_thread_ids() const;

 private:
  explicit HarnessPool(int threads);
  ~HarnessPool() = default;
  void loop(int tid);
  void keep_workers_off_caller();

  // A job's generation and thread count in one word, so that a worker reads both at once.
  std::atomic<uint64_t> job_{0};
  std::atomic<uint32_t> wake_{0};  // futex word: changes with every job and every set_hot
  std::atomic<bool> hot_{false};
  std::atomic<bool> busy_{false};
  std::atomic<int> pending_{0};
  std::atomic<int> spinning_{0};
  std::atomic<int> started_{0};
  Job job_fn_ = nullptr;
  void* job_ctx_ = nullptr;
  int workers_;
  pthread_t handles_[kMaxThreads - 1] = {};
  std::atomic<int> kernel_tids_[kMaxThreads - 1] = {};
  cpu_set_t allowed_{};
  bool place_away_ = false;
  int off_cpu_ = -1;  // the CPU the workers are kept off, -1 none yet
};

}  // namespace headway::cpu::runner
