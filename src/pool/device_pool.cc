#include "pool/device_pool.h"

#include <chrono>

namespace headway::pool {

PoolJobResult LocalPool::run(const PoolJob& job) {
  const auto asked = std::chrono::steady_clock::now();
  std::lock_guard lock(mutex_);
  PoolJobResult out;
  out.worker = "local";
  out.queued_seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - asked).count();
  out.process = run_job_here(job, &out.run_seconds);
  ++stats_.jobs;
  stats_.busy_seconds += out.run_seconds;
  stats_.device_seconds += out.run_seconds;
  return out;
}

std::vector<WorkerStatus> LocalPool::workers() const {
  std::lock_guard lock(mutex_);
  WorkerStatus w;
  w.name = "local";
  w.state = "running";
  w.jobs = stats_.jobs;
  w.held_seconds = stats_.device_seconds;
  w.busy_seconds = stats_.busy_seconds;
  return {w};
}

PoolStats LocalPool::stats() const {
  std::lock_guard lock(mutex_);
  return stats_;
}

}  // namespace headway::pool
