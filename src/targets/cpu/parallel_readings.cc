#include "targets/cpu/parallel_readings.h"

#include <algorithm>
#include <barrier>
#include <chrono>
#include <thread>

namespace headway::cpu {

std::vector<double> parallel_readings(int threads, int readings,
                                      const std::function<void(int)>& warmup,
                                      const std::function<void(int)>& work) {
  using Clock = std::chrono::steady_clock;
  threads = std::max(threads, 1);
  readings = std::max(readings, 0);
  const auto n = static_cast<size_t>(threads);
  std::barrier sync(threads + 1);
  std::vector<Clock::time_point> start(n), end(n);
  std::vector<std::thread> workers;
  workers.reserve(n);
  for (int t = 0; t < threads; ++t) {
    workers.emplace_back([&, t] {
      if (warmup) warmup(t);
      for (int r = 0; r < readings; ++r) {
        sync.arrive_and_wait();  // all workers start together
        start[static_cast<size_t>(t)] = Clock::now();
        work(t);
        end[static_cast<size_t>(t)] = Clock::now();
        sync.arrive_and_wait();  // the coordinator reads the stamps after this
      }
    });
  }
  std::vector<double> seconds;
  seconds.reserve(static_cast<size_t>(readings));
  for (int r = 0; r < readings; ++r) {
    sync.arrive_and_wait();
    sync.arrive_and_wait();
    const auto first = *std::min_element(start.begin(), start.end());
    const auto last = *std::max_element(end.begin(), end.end());
    seconds.push_back(std::chrono::duration<double>(last - first).count());
  }
  for (auto& w : workers) w.join();
  return seconds;
}

}  // namespace headway::cpu
