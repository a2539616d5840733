#pragma once
// Rounds at once (OptimizeOptions::concurrent_rounds): each round on a kernel runs on a thread of
// its own; the loop learns when one ends and what it decided or threw.
#include <condition_variable>
#include <exception>
#include <functional>
#include <map>
#include <mutex>
#include <optional>
#include <string>
#include <thread>
#include <vector>

#include "loop/optimize_options.h"
#include "loop/round.h"

namespace headway::loop {

// `options` for a round on another thread: its hooks (lint, on_screen_failure), which may use the
// run's connection, are called holding `mutex`, the run's lock, which must outlive the copy.
OptimizeOptions with_hooks_locked(const OptimizeOptions& options, std::recursive_mutex& mutex);

// A round that ended: what it decided (nullopt: nothing was left to try) or what it threw.
struct EndedRound {
  std::string kernel;
  std::optional<RoundCounts> counts;
  std::exception_ptr error;  // set: counts is meaningless
};

// The threads of the rounds in flight, at most one per kernel. Every member function requires
// the caller to hold `mutex` (the run's lock, given at construction); a round's body runs
// without it and takes it only to say it ended. The destructor waits for every thread: a round
// in flight must be told to stop (by its body's own checks) before this is destroyed.
class RoundThreads {
 public:
  explicit RoundThreads(std::recursive_mutex& mutex) : mutex_(mutex) {}
  RoundThreads(const RoundThreads&) = delete;
  RoundThreads& operator=(const RoundThreads&) = delete;
  ~RoundThreads();

  // Runs `body` on a new thread for `kernel`, which must have no round in flight. What it
  // returns or throws is kept for ended(); owned by the thread, `body`'s captures live as long.
  void start(const std::string& kernel, std::function<std::optional<RoundCounts>()> body);
  bool in_flight(const std::string& kernel) const { return rounds_.count(kernel) > 0; }
  int count() const { return static_cast<int>(rounds_.size()); }
  bool empty() const { return rounds_.empty(); }
  // Joins the rounds that ended since the last call and hands them over, in kernel order.
  std::vector<EndedRound> take_ended();
  // Waits (releasing `lock`, which holds the mutex) until a round ends or notify() is called; may
  // wake spuriously.
  void wait(std::unique_lock<std::recursive_mutex>& lock) { ended_.wait(lock); }
  // Wakes a wait() for a reason of the caller's.
  void notify() { ended_.notify_all(); }

 private:
  struct Running {
    std::thread thread;
    bool done = false;
    EndedRound ended;
  };
  std::recursive_mutex& mutex_;
  std::condition_variable_any ended_;
  std::map<std::string, Running> rounds_;  // by kernel
};

}  // namespace headway::loop
