#include "targets/cpu/parallel_readings.h"

#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <thread>

namespace headway::cpu {
namespace {

TEST(ParallelReadings, EveryWorkerWarmsOnceAndWorksOncePerReading) {
  std::atomic<int> warmups{0}, works{0};
  const auto s = parallel_readings(
      3, 4, [&](int) { ++warmups; }, [&](int) { ++works; });
  ASSERT_EQ(s.size(), 4u);
  EXPECT_EQ(warmups.load(), 3);
  EXPECT_EQ(works.load(), 12);
  for (double x : s) EXPECT_GE(x, 0.0);
}

TEST(ParallelReadings, AReadingSpansTheSlowestWorker) {
  // Worker 1 sleeps 20 ms, worker 0 returns at once: the span covers the sleeper. Sleeping can
  // only take longer than asked, so this lower bound cannot flake under load.
  const auto s = parallel_readings(2, 2, {}, [](int t) {
    if (t == 1) std::this_thread::sleep_for(std::chrono::milliseconds(20));
  });
  ASSERT_EQ(s.size(), 2u);
  for (double x : s) EXPECT_GE(x, 0.020);
}

}  // namespace
}  // namespace headway::cpu
