#pragma once
// Workers as Slurm batch jobs: one `sbatch` allocation per worker (one node, one task, the
// user's partition, account, time limit and --gres or --exclusive), a batch script that execs
// the worker, `scancel` to end them and `squeue` to follow them. The scripts and each worker's
// log (NAME-JOBID.log) are written to a folder every node must see (a shared filesystem).
// SLURM_CONF and the rest of the environment reach sbatch, squeue and scancel unchanged.
#include <filesystem>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "pool/worker_launcher.h"

namespace headway::pool {

struct SlurmOptions {
  std::string partition;         // -p; empty: the cluster's default
  std::string account;           // -A; empty: the user's default
  std::string gres;              // --gres, e.g. "gpu:1"
  bool exclusive = false;        // --exclusive: the whole node
  std::string time_limit;        // --time, Slurm's format ("4:00:00"); empty: the partition's
  std::filesystem::path folder;  // batch scripts and worker logs (shared with the nodes)
  std::vector<std::string> extra_arguments;  // passed to sbatch as they are
};

// Slurm's elapsed time as squeue prints it ("[days-][hours:]minutes:seconds": "0:07", "1:02:03",
// "2-01:00:00") in seconds; nullopt for anything else ("INVALID", "UNLIMITED", "").
std::optional<double> parse_slurm_elapsed(std::string_view text);

class SlurmLauncher final : public WorkerLauncher {
 public:
  explicit SlurmLauncher(SlurmOptions options);
  std::string kind() const override { return "slurm"; }
  Result<std::string> start(const std::vector<std::string>& argv, const std::string& name) override;
  void stop(const std::vector<std::string>& ids) override;
  Result<std::map<std::string, LaunchedWorker>> poll(const std::vector<std::string>& ids) override;
  // The sbatch command line start() runs for `script` (for tests and --dry-run messages).
  std::vector<std::string> sbatch_argv(const std::string& name,
                                       const std::filesystem::path& script) const;

 private:
  SlurmOptions options_;
};

}  // namespace headway::pool
