#include "pool/device_pool.h"

#include <chrono>

namespace headway::pool {

nlohmann::json pool_status_json(const DevicePool& pool) {
  const PoolStats s = pool.stats();
  nlohmann::json workers = nlohmann::json::array();
  for (const auto& w : pool.workers()) {
    workers.push_back({{"name", w.name},
                       {"launch_id", w.launch_id},
                       {"node", w.node},
                       {"state", w.state},
                       {"why", w.why},
                       {"jobs", w.jobs},
                       {"held_seconds", w.held_seconds},
                       {"busy_seconds", w.busy_seconds}});
  }
  std::vector<std::string> events = pool.events();
  if (events.size() > 20) events.erase(events.begin(), events.end() - 20);
  return {{"kind", pool.kind()},
          {"devices", pool.devices()},
          {"stats",
           {{"jobs", s.jobs},
            {"retried", s.retried},
            {"workers_started", s.workers_started},
            {"workers_lost", s.workers_lost},
            {"device_seconds", s.device_seconds},
            {"busy_seconds", s.busy_seconds},
            {"transfer_seconds", s.transfer_seconds},
            {"running", s.running},
            {"queued", s.queued}}},
          {"workers", workers},
          {"events", events}};
}

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
