#pragma once
// Where device work runs: a pool of devices behind one call. A worker pool (worker_pool.h) spreads
// jobs over long-lived workers, one per device, started through a scheduler such as Slurm.
// Targets send their device work (a command target's check and time commands) through the pool
// their run was given, and ask it how many devices there are; a run without one (`--pool local`)
// runs its device work on this machine (run_job_here), one job at a time.
#include <cstdint>
#include <nlohmann/json.hpp>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#include "pool/pool_job.h"

namespace headway::pool {

// Thrown by run() when the pool can run no more jobs: every worker lost and no replacement left,
// or a job lost with its worker on every attempt. Nothing measured after it counts.
class PoolStopped : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// One device's worker as status shows it.
struct WorkerStatus {
  std::string name;       // "w1"
  std::string launch_id;  // the scheduler's id (a Slurm job id); empty for local
  std::string node;       // where it runs, once known
  std::string state;      // "submitted", "pending", "running", "lost", "done"
  std::string why;        // lost: what happened
  int64_t jobs = 0;
  double held_seconds = 0.0;  // from connecting until it ended (or now)
  double busy_seconds = 0.0;  // running jobs
  // Held as the scheduler counts it (Slurm's elapsed time, from its allocation), as last seen
  // while the scheduler listed it: up to one poll interval short of the end. 0: never said.
  double scheduler_seconds = 0.0;
  // On the pool's clock (seconds since it started): when it connected and when it ended (-1: not
  // yet), and the spans in which it ran jobs, oldest first, spans less than a millisecond apart
  // merged into one.
  double connected_at = -1.0;
  double ended_at = -1.0;
  std::vector<std::pair<double, double>> busy_spans;
};

struct PoolStats {
  int64_t jobs = 0;             // jobs that returned a result
  int64_t retried = 0;          // runs lost with their worker and run again
  int64_t workers_started = 0;  // replacements included
  int64_t workers_lost = 0;
  double device_seconds = 0.0;     // held by every worker, from connecting until it ended (or now)
  double scheduler_seconds = 0.0;  // the same as the scheduler counts it (WorkerStatus)
  double busy_seconds = 0.0;
  // Summed over the jobs: the round trip beyond the job's own run (sending it, starting it on
  // the worker, its result back): the pool's overhead per job is this over `jobs`.
  double transfer_seconds = 0.0;
  int64_t running = 0;           // jobs on a device now
  int64_t queued = 0;            // jobs waiting for a device
  double elapsed_seconds = 0.0;  // since the pool started
};

// The pool as `headway status` shows it: {"kind", "devices", "stats": {...}, "workers": [...],
// "events": [the last 20]}; the figures of PoolStats and WorkerStatus under their names.
nlohmann::json pool_status_json(const class DevicePool& pool);

// Each worker's use of its device over the run, for the report: {"kind", "devices",
// "elapsed_s", "workers": [{"name", "node", "jobs", "connected_s", "ended_s" (null: not yet),
// "busy": [[start_s, end_s], ...]}]} on the pool's clock (WorkerStatus).
nlohmann::json pool_use_json(const class DevicePool& pool);

class DevicePool {
 public:
  virtual ~DevicePool() = default;
  virtual std::string kind() const = 0;  // the launcher's: "slurm"
  // Devices that can run jobs at once: the workers asked for.
  virtual int devices() const = 0;
  // Runs the job on a device and waits for its result. Thread-safe: callers on several threads
  // run on several devices at once. A job whose worker was lost is run again on another, up to
  // the pool's attempts, and never reported as the candidate's failure. Throws PoolStopped.
  virtual PoolJobResult run(const PoolJob& job) = 0;
  virtual std::vector<WorkerStatus> workers() const = 0;
  virtual PoolStats stats() const = 0;
  // One line each, oldest first: workers started, connected, lost and replaced.
  virtual std::vector<std::string> events() const { return {}; }
  // Ends the pool's use: the jobs in flight and queued end with PoolStopped, a later run() throws
  // it, and the devices are given back. Idempotent; the destructor does it too. Safe while other
  // threads wait in run(): they return (with PoolStopped) and never touch the pool again.
  virtual void close() {}
};

}  // namespace headway::pool
