#pragma once
// Independent steps split over threads, this one among them: for work whose steps touch
// disjoint memory (a reading's sets and slots, a kernel's input draws).
#include <algorithm>
#include <exception>
#include <thread>
#include <vector>

namespace headway {

// Runs step(k, thread) for every k in [0, count), split over at most `threads` threads (at least
// one; never more than count): `thread`, in [0, threads), is the index of the thread that runs it
// (0: the caller), for state kept per thread. An exception a step throws is thrown again here once
// every thread has ended (the first one, by thread), and the thread that threw takes no further
// steps.
template <class Step>
void for_each_step_on(int count, int threads, const Step& step) {
  const int stride = std::clamp(count, 1, std::max(threads, 1));
  std::vector<std::exception_ptr> thrown(static_cast<size_t>(stride));
  auto run = [&](int t) {
    try {
      for (int k = t; k < count; k += stride) step(k, t);
    } catch (...) {
      thrown[static_cast<size_t>(t)] = std::current_exception();
    }
  };
  std::vector<std::thread> others;
  for (int t = 1; t < stride; ++t) others.emplace_back(run, t);
  run(0);
  for (auto& other : others) other.join();
  for (const auto& e : thrown) {
    if (e) std::rethrow_exception(e);
  }
}

}  // namespace headway
