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
  std::string kind;  // "local", "slurm" or "study"; empty: the workspace's, else local
  int workers = 0;   // 0: the workspace's, else 1
  std::string partition, account, gres, worker_time, pool_host;
  bool exclusive = false;
  double lease_seconds = 0.0;  // 0: the workspace's, else 60
  // With --pool study: the study's pool broker (pool/pool_broker.h) and its token file, which
  // `headway ablate` gives its runs.
  std::string broker, token_file;
};

// Who takes the pool options: a verb on its own (calibrate), optimize (which also takes --pool
// study with --pool-broker and --pool-token-file, as a run of `headway ablate`), or ablate (the
// study's one pool).
enum class PoolOptionsOf { kVerb, kOptimize, kStudy };
void add_pool_options(CLI::App& cmd, PoolArgs& args, PoolOptionsOf of = PoolOptionsOf::kVerb);
// True when `args` name a pool or one of its options.
bool pool_given(const PoolArgs& args);

// The pool the options ask for, over `stored` (an earlier run's, or {}). Throws UsageError for
// options that do not fit together (--partition without --pool slurm).
nlohmann::json pool_config(const PoolArgs& args, nlohmann::json stored);
// The pool this run uses: the options given over the workspace's record, which is updated when
// they change it. A study's pool (--pool study) is not recorded: it lives as long as its study's
// `headway ablate`; the run is named after its workspace's last two folders ("full/3").
nlohmann::json pool_config(store::Workspace& ws, const PoolArgs& args);

// Starts the configured pool and gives it to `target`: nullptr for local, or when the target keeps
// its device work here (a warning on stderr says so). Worker scripts, logs, the token and
// status.json go to `folder`, which every node must see. A study's pool is joined, not started:
// the run becomes a client of its broker. Throws EnvironmentError when the target's toolchain is
// missing or the pool cannot start (sbatch missing or refusing, the broker gone or refusing).
std::shared_ptr<pool::DevicePool> start_pool(const nlohmann::json& config, targets::Target& target,
                                             const std::filesystem::path& folder);
// False, with a warning on stderr, when `target` keeps its device work on this machine; throws
// EnvironmentError when its toolchain is missing.
bool target_takes_pool(targets::Target& target);
// The workers of a slurm pool `config`, started, their files in `folder` (as start_pool).
std::shared_ptr<pool::DevicePool> start_slurm_pool(const nlohmann::json& config,
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
