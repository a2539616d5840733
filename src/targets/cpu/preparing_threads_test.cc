// A reading's host work split over the cores: every call and every share of it done once.
#include "targets/cpu/preparing_threads.h"

#include <gtest/gtest.h>

#include <atomic>
#include <map>
#include <mutex>
#include <set>
#include <stdexcept>
#include <thread>
#include <utility>

namespace headway::cpu {
namespace {

TEST(PreparingThreads, EveryCallIsDoneOnce) {
  for (const int count : {0, 1, 3, 17}) {
    std::vector<std::atomic<int>> done(static_cast<size_t>(count));
    for_each_call(count, [&](int k) { ++done[static_cast<size_t>(k)]; });
    for (const auto& d : done) EXPECT_EQ(d.load(), 1) << count;
  }
}

// Per-thread state (verification's scratch slots) is indexed by the thread a step runs on: no
// two threads share an index, and no index reaches preparing_threads().
TEST(PreparingThreads, EachStepKnowsWhichThreadRunsIt) {
  std::mutex mutex;
  std::map<int, std::thread::id> owner;  // thread index -> the thread that used it
  std::atomic<int> steps = 0;
  for_each_call_on(40, [&](int, int thread) {
    ++steps;
    std::lock_guard lock(mutex);
    EXPECT_GE(thread, 0);
    EXPECT_LT(thread, preparing_threads());
    const auto [it, made] = owner.emplace(thread, std::this_thread::get_id());
    EXPECT_EQ(it->second, std::this_thread::get_id()) << "index " << thread << " on two threads";
  });
  EXPECT_EQ(steps.load(), 40);
  EXPECT_EQ(owner.size(), static_cast<size_t>(std::min(preparing_threads(), 40)));
}

TEST(PreparingThreads, AStepsExceptionReachesTheCallerAfterEveryThreadEnded) {
  std::atomic<int> running = 0, done = 0;
  EXPECT_THROW(for_each_call_on(8,
                                [&](int k, int) {
                                  ++running;
                                  if (k == 8 - 1) throw std::runtime_error("step 7");
                                  ++done;
                                  --running;
                                }),
               std::runtime_error);
  EXPECT_EQ(running.load(), 1) << "only the step that threw is left unfinished";
  EXPECT_EQ(done.load(), 7);
}

TEST(PreparingThreads, FewCallsAreSplitIntoSharesThatCoverEach) {
  for (const int calls : {1, 2, 3, 9}) {
    std::mutex mutex;
    std::set<std::pair<int, int>> seen;  // (call, share index)
    int of = 0;
    for_each_share(calls, [&](int k, Share share) {
      std::lock_guard lock(mutex);
      EXPECT_TRUE(seen.insert({k, share.index}).second) << calls << ": done twice";
      of = share.of;
    });
    // Each share of each call once; enough shares for every thread, none where calls suffice.
    const int threads = preparing_threads();
    EXPECT_EQ(seen.size(), static_cast<size_t>(calls * of)) << calls;
    if (calls >= threads) {
      EXPECT_EQ(of, 1) << calls;
    } else {
      EXPECT_GE(calls * of, threads) << calls;
    }
  }
}

}  // namespace
}  // namespace headway::cpu
