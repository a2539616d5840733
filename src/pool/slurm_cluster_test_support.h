#pragma once
// For tests: a whole Slurm cluster on this machine, started and stopped by
// scripts/local-slurm.sh (munged, slurmctld, one slurmd per node dev1..devN on 127.0.0.1, state
// and logs in a temporary folder). While it lives, SLURM_CONF points this process (and the
// programs it starts: sbatch, squeue, scancel) at it.
#include <filesystem>
#include <string>
#include <vector>

#include "store/test_temp_dir.h"

namespace headway::pool::testing {

class SlurmCluster {
 public:
  // Empty when a cluster can start here (root, and the Debian packages munge, slurmctld, slurmd
  // and slurm-client), else why not.
  static std::string unavailable_reason();
  // Starts the cluster; throws std::runtime_error with the script's output when it cannot.
  explicit SlurmCluster(int nodes = 4);
  // Stops every daemon it started and restores SLURM_CONF, also after a failed test.
  ~SlurmCluster();
  SlurmCluster(const SlurmCluster&) = delete;
  SlurmCluster& operator=(const SlurmCluster&) = delete;

  const std::filesystem::path& folder() const { return dir_.path(); }
  // The ids of the jobs in the queue, in any state.
  std::vector<std::string> queue() const;
  // True when the queue is empty within `seconds`.
  bool queue_empties_within(double seconds) const;
  // The job's node (squeue %N), empty when it has none.
  std::string node_of(const std::string& job) const;
  void set_node_down(const std::string& node) const;
  // Stops slurmctld and starts it again, waiting until it answers.
  void restart_controller() const;

 private:
  store::TestTempDir dir_;
  std::string saved_conf_;
  bool had_conf_ = false;
};

}  // namespace headway::pool::testing
