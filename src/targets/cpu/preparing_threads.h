#pragma once
// The host's work on a timed reading's sets while its child is stopped (patch, flush, restore,
// reset), split over the host's cores: every core is headway's then, and the work of one call
// touches only that call's set and slot.
#include <algorithm>
#include <thread>

#include "common/steps_on_threads.h"
#include "kernels/input_sets.h"

namespace headway::cpu {

// Threads the work is split over: the host's cores, at most 4, this thread among them.
inline int preparing_threads() {
  return static_cast<int>(std::clamp(std::thread::hardware_concurrency(), 1u, 4u));
}

// Runs step(k, thread) for every k in [0, count), split over preparing_threads() as
// for_each_step_on does (common/steps_on_threads.h). The steps must touch disjoint memory.
template <class Step>
void for_each_call_on(int count, const Step& step) {
  for_each_step_on(count, preparing_threads(), step);
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
