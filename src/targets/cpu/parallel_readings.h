#pragma once
// Timed readings of work that several threads do together, measured by the workers themselves:
// after a barrier every worker stamps its own start and end, and a reading spans the earliest
// start to the latest end. A coordinating thread that is descheduled between the barrier and its
// own clock read therefore cannot shorten (and so over-report) a reading.
#include <functional>
#include <vector>

namespace headway::cpu {

// Starts `threads` workers (threads >= 1); worker t calls warmup(t) once, then for each of
// `readings` readings waits for all workers and calls work(t) between its own two clock reads.
// Returns the span of every reading in seconds (earliest start to latest end over the workers).
// warmup may be empty. Each call to work(t) must do the same amount of work for a fixed t.
std::vector<double> parallel_readings(int threads, int readings,
                                      const std::function<void(int)>& warmup,
                                      const std::function<void(int)>& work);

}  // namespace headway::cpu
