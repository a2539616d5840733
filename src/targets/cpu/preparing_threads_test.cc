// A reading's host work split over the cores: every call and every share of it done once.
#include "targets/cpu/preparing_threads.h"

#include <gtest/gtest.h>

#include <atomic>
#include <mutex>
#include <set>
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
