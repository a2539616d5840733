#pragma once
// The device pool of `headway optimize` (src/pool/, docs/POOL.md): its options, the workspace's
// record of them (meta "pool"), so that a resumed run keeps its pool, and starting it.
#include <CLI/CLI.hpp>
#include <functional>
#include <memory>
#include <nlohmann/json.hpp>
#include <string>

#include "pool/device_pool.h"
#include "store/workspace.h"
#include "targets/target.h"

namespace headway::cli {

struct PoolArgs {
  std::string kind;  // "local" or "slurm"; empty: the workspace's, else local
  int workers = 0;   // 0: the workspace's, else 1
  std::string partition, account, gres, worker_time, pool_host;
  bool exclusive = false;
  double lease_seconds = 0.0;  // 0: the workspace's, else 60
};

void add_pool_options(CLI::App& cmd, PoolArgs& args);

// The pool the options ask for, over `stored` (an earlier run's, or {}). Throws UsageError for
// options that do not fit together (--partition without --pool slurm).
nlohmann::json pool_config(const PoolArgs& args, nlohmann::json stored);
// The pool this run uses: the options given over the workspace's record, which is updated when
// they change it.
nlohmann::json pool_config(store::Workspace& ws, const PoolArgs& args);

// Starts the configured pool and gives it to `target`: nullptr for local, or when the target keeps
// its device work here (a warning on stderr says so). Worker scripts, logs, the token and
// status.json go to `folder`, which every node must see. Throws EnvironmentError when the
// target's toolchain is missing or the pool cannot start (sbatch missing or refusing).
std::shared_ptr<pool::DevicePool> start_pool(const nlohmann::json& config, targets::Target& target,
                                             const std::filesystem::path& folder);
// The workspace's pool folder: <workspace>/.headway/pool/.
std::filesystem::path pool_folder(store::Workspace& ws);

// One line for the progress: "slurm pool: 4 workers on partition gpu".
std::string pool_line(const nlohmann::json& config);

// Where a run's pool writes its status (pool_status_json): status.json in pool_folder.
std::filesystem::path pool_status_path(store::Workspace& ws);

// The pool's status as text: a summary line, then a line per worker and the latest events.
std::string pool_text(const nlohmann::json& status);

}  // namespace headway::cli
