#include "pool/device_pool.h"

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
                       {"busy_seconds", w.busy_seconds},
                       {"scheduler_seconds", w.scheduler_seconds}});
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
            {"scheduler_seconds", s.scheduler_seconds},
            {"busy_seconds", s.busy_seconds},
            {"transfer_seconds", s.transfer_seconds},
            {"running", s.running},
            {"queued", s.queued}}},
          {"workers", workers},
          {"events", events}};
}

nlohmann::json pool_use_json(const DevicePool& pool) {
  nlohmann::json workers = nlohmann::json::array();
  const auto at = [](double s) { return s < 0 ? nlohmann::json() : nlohmann::json(s); };
  for (const auto& w : pool.workers()) {
    nlohmann::json busy = nlohmann::json::array();
    for (const auto& [start, end] : w.busy_spans) busy.push_back({start, end});
    workers.push_back({{"name", w.name},
                       {"node", w.node},
                       {"jobs", w.jobs},
                       {"connected_s", at(w.connected_at)},
                       {"ended_s", at(w.ended_at)},
                       {"busy", std::move(busy)}});
  }
  return {{"kind", pool.kind()},
          {"devices", pool.devices()},
          {"elapsed_s", pool.stats().elapsed_seconds},
          {"workers", std::move(workers)}};
}

}  // namespace headway::pool
