#pragma once
// The device pools of a workspace's runs: when a run with a pool ends, each worker's use of its
// device over time (pool::pool_use_json), for the report. A run killed outright records nothing.
#include <cstdint>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "store/database.h"

namespace headway::store {

struct PoolRun {
  int64_t id = 0;
  std::string kind;  // the pool's: "slurm"
  nlohmann::json use;
  std::string at;  // UTC, when the run recorded it
};

// Appends a run's pool. Requires: db at schema version 11 or later. Throws StoreError when the
// database cannot be written.
void record_pool_run(Database& db, const std::string& kind, const nlohmann::json& use);

// Every recorded pool, oldest first. A row whose JSON does not parse (written by hand) is skipped.
std::vector<PoolRun> pool_runs(Database& db);

}  // namespace headway::store
