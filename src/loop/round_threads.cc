#include "loop/round_threads.h"

#include <stdexcept>

namespace headway::loop {

OptimizeOptions with_hooks_locked(const OptimizeOptions& options, std::recursive_mutex& mutex) {
  OptimizeOptions o = options;
  if (options.lint) {
    o.lint = [&mutex, lint = options.lint](const std::string& source) {
      std::lock_guard lock(mutex);
      return lint(source);
    };
  }
  if (options.on_screen_failure) {
    o.on_screen_failure = [&mutex, on_failure = options.on_screen_failure](
                              const std::string& kernel, int64_t node) {
      std::lock_guard lock(mutex);
      on_failure(kernel, node);
    };
  }
  return o;
}

RoundThreads::~RoundThreads() {
  for (auto& [kernel, r] : rounds_) {
    if (r.thread.joinable()) r.thread.join();
  }
}

void RoundThreads::start(const std::string& kernel,
                         std::function<std::optional<RoundCounts>()> body) {
  if (rounds_.count(kernel)) throw std::logic_error("a second round in flight on " + kernel);
  Running& r = rounds_[kernel];
  r.ended.kernel = kernel;
  r.thread = std::thread([this, &r, body = std::move(body)] {
    std::optional<RoundCounts> counts;
    std::exception_ptr error;
    try {
      counts = body();
    } catch (...) {
      error = std::current_exception();
    }
    std::lock_guard lock(mutex_);
    r.ended.counts = counts;
    r.ended.error = error;
    r.done = true;
    ended_.notify_all();
  });
}

std::vector<EndedRound> RoundThreads::take_ended() {
  std::vector<EndedRound> out;
  for (auto it = rounds_.begin(); it != rounds_.end();) {
    if (!it->second.done) {
      ++it;
      continue;
    }
    it->second.thread.join();
    out.push_back(std::move(it->second.ended));
    it = rounds_.erase(it);
  }
  return out;
}

}  // namespace headway::loop
