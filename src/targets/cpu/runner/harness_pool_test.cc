// The harness's pool in this process: every part of a job runs once, on the thread its tid
// names; bad requests run nothing; hot workers spin and cold ones sleep (read from /proc).
#include "targets/cpu/runner/harness_pool.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <fstream>
#include <set>
#include <string>
#include <thread>
#include <vector>

namespace headway::cpu::runner {
namespace {

struct Record {
  std::atomic<int> runs[HarnessPool::kMaxThreads] = {};
  std::atomic<int> thread_ids[HarnessPool::kMaxThreads] = {};
};

void record_part(void* ctx, int tid) {
  auto* r = static_cast<Record*>(ctx);
  r->runs[tid].fetch_add(1);
  r->thread_ids[tid].store(static_cast<int>(gettid()));
}

// The scheduler state of one thread of this process ('R' running, 'S' sleeping, ...).
char thread_state(int thread_id) {
  std::ifstream stat("/proc/self/task/" + std::to_string(thread_id) + "/stat");
  std::string line;
  std::getline(stat, line);
  const auto close_paren = line.rfind(')');
  return close_paren == std::string::npos || close_paren + 2 >= line.size() ? '?'
                                                                            : line[close_paren + 2];
}

// Whether every worker reaches `state` within a second.
bool workers_reach(const HarnessPool& pool, char state) {
  const auto end = std::chrono::steady_clock::now() + std::chrono::seconds(1);
  for (;;) {
    bool all = true;
    for (int id : pool.worker_thread_ids()) all = all && thread_state(id) == state;
    if (all) return true;
    if (std::chrono::steady_clock::now() > end) return false;
    std::this_thread::sleep_for(std::chrono::milliseconds(1));
  }
}

TEST(HarnessPool, EveryPartRunsOnceOnItsOwnThread) {
  HarnessPool& pool = HarnessPool::start(4);
  ASSERT_EQ(pool.threads(), 4);
  Record r;
  ASSERT_EQ(pool.run(4, record_part, &r), 0);
  const std::vector<int> workers = pool.worker_thread_ids();
  ASSERT_EQ(workers.size(), 3u);
  EXPECT_EQ(r.thread_ids[0].load(), static_cast<int>(gettid()));
  for (int tid = 0; tid < 4; ++tid) EXPECT_EQ(r.runs[tid].load(), 1) << tid;
  for (int tid = 1; tid < 4; ++tid) EXPECT_EQ(r.thread_ids[tid].load(), workers[tid - 1]) << tid;
}

TEST(HarnessPool, AJobOfFewerThreadsLeavesTheOtherWorkersOut) {
  HarnessPool& pool = HarnessPool::start(4);
  Record r;
  ASSERT_EQ(pool.run(2, record_part, &r), 0);
  EXPECT_EQ(r.runs[0].load(), 1);
  EXPECT_EQ(r.runs[1].load(), 1);
  EXPECT_EQ(r.runs[2].load(), 0);
  EXPECT_EQ(r.runs[3].load(), 0);
  // A later job of all four finds the left-out workers ready, and runs each part once.
  Record all;
  ASSERT_EQ(pool.run(4, record_part, &all), 0);
  for (int tid = 0; tid < 4; ++tid) EXPECT_EQ(all.runs[tid].load(), 1) << tid;
}

TEST(HarnessPool, ManyJobsInARowEachRunEveryPartExactlyOnce) {
  HarnessPool& pool = HarnessPool::start(3);
  std::atomic<long> sum{0};
  struct Job {
    std::atomic<long>* sum;
    long value;
  };
  long expected = 0;
  for (int i = 0; i < 5000; ++i) {
    Job job{&sum, i};
    const int threads = 1 + i % 3;
    ASSERT_EQ(pool.run(
                  threads,
                  [](void* ctx, int) {
                    auto* j = static_cast<Job*>(ctx);
                    j->sum->fetch_add(j->value);
                  },
                  &job),
              0);
    expected += static_cast<long>(threads) * i;
  }
  EXPECT_EQ(sum.load(), expected);
}

TEST(HarnessPool, RequestsOutsideThePoolRunNothing) {
  HarnessPool& pool = HarnessPool::start(2);
  Record r;
  EXPECT_EQ(pool.run(0, record_part, &r), -1);
  EXPECT_EQ(pool.run(3, record_part, &r), -1);
  EXPECT_EQ(pool.run(-1, record_part, &r), -1);
  EXPECT_EQ(pool.run(1, nullptr, &r), -1);
  for (int tid = 0; tid < 3; ++tid) EXPECT_EQ(r.runs[tid].load(), 0);
}

TEST(HarnessPool, ARunFromASecondThreadWhileOneIsInProgressIsRefused) {
  HarnessPool& pool = HarnessPool::start(2);
  struct Gate {
    std::atomic<bool> entered{false}, release{false};
  } gate;
  std::thread first([&] {
    pool.run(
        1,
        [](void* ctx, int) {
          auto* g = static_cast<Gate*>(ctx);
          g->entered = true;
          while (!g->release) std::this_thread::yield();
        },
        &gate);
  });
  while (!gate.entered) std::this_thread::yield();
  Record r;
  EXPECT_EQ(pool.run(1, record_part, &r), -1);
  EXPECT_EQ(r.runs[0].load(), 0);
  gate.release = true;
  first.join();
  EXPECT_EQ(pool.run(1, record_part, &r), 0);
  EXPECT_EQ(r.runs[0].load(), 1);
}

TEST(HarnessPool, HotWorkersSpinAndColdOnesSleep) {
  HarnessPool& pool = HarnessPool::start(2);
  Record r;
  ASSERT_EQ(pool.run(2, record_part, &r), 0);
  EXPECT_TRUE(workers_reach(pool, 'S')) << "a cold worker did not fall asleep after its job";
  pool.set_hot(true, 5'000'000);
  EXPECT_EQ(pool.spinning_workers(), 1);
  EXPECT_TRUE(workers_reach(pool, 'R')) << "a hot worker is not running";
  // A hot worker takes jobs as a cold one does.
  Record hot;
  ASSERT_EQ(pool.run(2, record_part, &hot), 0);
  EXPECT_EQ(hot.runs[1].load(), 1);
  EXPECT_EQ(pool.spinning_workers(), 1);
  pool.set_hot(false);
  EXPECT_TRUE(workers_reach(pool, 'S')) << "a worker told to go cold kept running";
  EXPECT_EQ(pool.spinning_workers(), 0);
}

TEST(HarnessPool, AThreadGetsOneThreadPerCpuItMayUse) {
  // Counted from the caller's affinity, not the machine's CPUs: a thread held to one CPU (as a
  // runner under `taskset` would be) gets a pool of one.
  std::thread held([] {
    cpu_set_t one;
    CPU_ZERO(&one);
    CPU_SET(sched_getcpu(), &one);
    ASSERT_EQ(sched_setaffinity(0, sizeof one, &one), 0);
    EXPECT_EQ(HarnessPool::threads_for_this_process(), 1);
  });
  held.join();
  cpu_set_t set;
  CPU_ZERO(&set);
  ASSERT_EQ(sched_getaffinity(0, sizeof set, &set), 0);
  EXPECT_EQ(HarnessPool::threads_for_this_process(),
            std::min(CPU_COUNT(&set), HarnessPool::kMaxThreads));
}

}  // namespace
}  // namespace headway::cpu::runner
