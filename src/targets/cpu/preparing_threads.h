#pragma once
// The host's work on a timed reading's sets while its child is stopped (patch, flush, restore,
// reset), split over the host's cores: every core is headway's then, and the work of one call
// touches only that call's set and slot.
#include <algorithm>
#include <exception>
#include <thread>
#include <vector>

#include "kernels/input_sets.h"

namespace headway::cpu {

// Threads the work is split over: the host's cores, at most 4, this thread among them.
inline int preparing_threads() {
  return static_cast<int>(std::clamp(std::thread::hardware_concurrency(), 1u, 4u));
}

// Runs step(k, thread) for every k in [0, count), split over preparing_threads(): `thread`, in
// [0, preparing_threads()), is the index of the thread that runs it (0: the caller), for state
// kept per thread. The steps must touch disjoint memory.
// An exception a step throws is thrown again here once every thread has ended (the first one,
// by thread), and the thread that threw takes no further steps.
template <class Step>
void for_each_call_on(int count, const Step& step) {
  const int stride = std::min(preparing_threads(), std::max(count, 1));
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

// Runs step(k) for every k in [0, count), as for_each_call_on does.
template <class Step>
void for_each_call(int count, const Step& step) {
  for_each_call_on(count, [&](int k, int) { step(k); });
}

// Runs step(k, share) for every call k of a reading and every share of that call's work, as
// for_each_call does: a reading of fewer calls than threads has each call's work split into
// shares (Share), so that every thread has some.
template <class Step>
void for_each_share(int calls, const Step& step) {
  const int threads = preparing_threads();
  const int shares = calls >= threads ? 1 : (threads + calls - 1) / std::max(calls, 1);
  for_each_call(calls * shares, [&](int i) { step(i / shares, Share{i % shares, shares}); });
}

}  // namespace headway::cpu
