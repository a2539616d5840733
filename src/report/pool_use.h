#pragma once
// The device pools of a workspace's runs as the report shows them: per run, each worker's use of
// its device over time (store/pool_runs.h, written by pool::pool_use_json when a run with a pool
// ends), with the share of the held time it was busy.
#include <cstdint>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "store/workspace.h"

namespace headway::report {

// One worker, on its pool's clock (seconds since the pool started).
struct WorkerUse {
  std::string name;
  std::string node;
  int64_t jobs = 0;
  double connected_s = -1;                      // -1: it never connected
  double ended_s = -1;                          // -1: it held its device until the run ended
  std::vector<std::pair<double, double>> busy;  // spans running jobs, oldest first

  // From connecting until it ended, or until `run_end_s` (the pool's elapsed time).
  double held_seconds(double run_end_s) const;
  double busy_seconds() const;
};

struct PoolUseReport {
  int64_t id = 0;
  std::string kind;  // "slurm"
  std::string at;    // UTC, when the run ended
  int devices = 0;
  double elapsed_s = 0;  // the pool's life in the run
  std::vector<WorkerUse> workers;

  double held_seconds() const;  // over the workers
  double busy_seconds() const;
  double busy_share() const;  // busy over held; 0 when nothing was held
};

// A stored run's use (pool::pool_use_json's shape); fields missing or of the wrong type read as
// their defaults, and spans that are not [start, end] with start <= end are dropped.
PoolUseReport parse_pool_use(int64_t id, const std::string& kind, const std::string& at,
                             const nlohmann::json& use);

// Every run's pool, oldest first. Throws store::StoreError on a database failure.
std::vector<PoolUseReport> pool_use_reports(store::Workspace& ws);

// "slurm pool of 4 devices (run ended 2026-12-05T01:00:00Z): 120 jobs; busy 93% of the 8.2
// device-minutes held"
std::string pool_use_line(const PoolUseReport& pool);

// Each worker's use over the run as a gnuplot script body: a row per worker, the time it held
// its device as a pale bar and its busy spans as solid ones; nullopt when no worker connected.
std::optional<std::string> pool_use_plot(const PoolUseReport& pool);
// The name the plot gets in a Gnuplot batch: "pool:<id>".
std::string pool_use_name(int64_t id);

}  // namespace headway::report
