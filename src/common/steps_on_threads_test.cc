#include "common/steps_on_threads.h"

#include <gtest/gtest.h>

#include <atomic>
#include <mutex>
#include <set>
#include <stdexcept>
#include <vector>

namespace headway {
namespace {

// Every step runs once, on no more threads than asked for (and none past the steps), and the
// thread indices name distinct threads from 0 up.
TEST(StepsOnThreads, EveryStepOnceOnAtMostTheThreadsAskedFor) {
  for (const auto& [count, threads] : {std::pair{0, 3}, {1, 3}, {5, 3}, {17, 1}, {4, 0}}) {
    std::vector<std::atomic<int>> done(static_cast<size_t>(count));
    std::mutex mutex;
    std::set<int> used;
    for_each_step_on(count, threads, [&](int k, int thread) {
      ++done[static_cast<size_t>(k)];
      std::lock_guard lock(mutex);
      used.insert(thread);
    });
    for (const auto& d : done) EXPECT_EQ(d.load(), 1) << count << " on " << threads;
    const int expected = count == 0 ? 0 : std::min(count, std::max(threads, 1));
    EXPECT_EQ(static_cast<int>(used.size()), expected) << count << " on " << threads;
    if (!used.empty()) {
      EXPECT_EQ(*used.rbegin(), expected - 1);
    }
  }
}

TEST(StepsOnThreads, AStepsExceptionIsThrownOnceEveryThreadHasEnded) {
  std::atomic<int> ran = 0;
  EXPECT_THROW(for_each_step_on(8, 2,
                                [&](int k, int) {
                                  ++ran;
                                  if (k == 3) throw std::runtime_error("step 3");
                                }),
               std::runtime_error);
  // Thread 1 takes 1, 3 and stops; thread 0 takes 0, 2, 4, 6.
  EXPECT_EQ(ran.load(), 6);
}

}  // namespace
}  // namespace headway
