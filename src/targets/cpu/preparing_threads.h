#pragma once
// The host's work on a timed reading's sets while its child is stopped (patch, flush, restore,
// reset), split over the host's cores: every core is headway's then, and the work of one call
// touches only that call's set and slot.
#include <algorithm>
#include <thread>
#include <vector>

#include "kernels/input_sets.h"

namespace headway::cpu {

// Threads the work is split over: the host's cores, at most 4, this thread among them.
inline int preparing_threads() {
  return static_cast<int>(std::clamp(std::thread::hardware_concurrency(), 1u, 4u));
}

// Runs step(k) for every k in [0, count), split over preparing_threads(). The steps must touch
// disjoint memory.
template <class Step>
void for_each_call(int count, const Step& step) {
  const int stride = std::min(preparing_threads(), std::max(count, 1));
  std::vector<std::thread> others;
  for (int t = 1; t < stride; ++t) {
    others.emplace_back([&, t] {
      for (int k = t; k < count; k += stride) step(k);
    });
  }
  for (int k = 0; k < count; k += stride) step(k);
  for (auto& other : others) other.join();
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
