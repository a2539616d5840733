#pragma once
// How a worker pool (worker_pool.h) gets its workers: a scheduler that starts a `headway worker`
// on a device node, stops it, and says what became of it. slurm_launcher.h is Slurm's.
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "common/result.h"

namespace headway::pool {

struct LaunchedWorker {
  std::string state;  // the scheduler's word: "PENDING", "RUNNING", "COMPLETING", ...
  std::string node;   // empty until placed
  // The time the scheduler counts the worker's allocation as used (Slurm's elapsed time);
  // nullopt when the scheduler does not say.
  std::optional<double> elapsed_seconds;
};

class WorkerLauncher {
 public:
  virtual ~WorkerLauncher() = default;
  virtual std::string kind() const = 0;  // "slurm"
  // Asks the scheduler for one device running `argv`; returns the scheduler's id for it.
  // `name` is the worker's name (w1, w2, ...), for the scheduler's job name and log file.
  virtual Result<std::string> start(const std::vector<std::string>& argv,
                                    const std::string& name) = 0;
  // Ends these workers, running or queued (never throws; ids already gone are ignored).
  virtual void stop(const std::vector<std::string>& ids) = 0;
  // What the scheduler knows of these ids; an id missing from the map has left the scheduler
  // (ended). An Error: the scheduler could not be asked this time (say, its controller is
  // restarting); nothing is to be concluded from it.
  virtual Result<std::map<std::string, LaunchedWorker>> poll(
      const std::vector<std::string>& ids) = 0;
};

}  // namespace headway::pool
