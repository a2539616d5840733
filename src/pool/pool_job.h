#pragma once
// One unit of device work as a device pool (device_pool.h) runs it: a program with its arguments,
// a wall-clock limit and, for candidate code, the sandbox policy it runs under. A job is plain
// data, so that it can travel to a worker on another node (worker.h) as JSON; the paths in it
// (artifacts, working folders) must be on a filesystem that node shares with the run.
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

#include "common/result.h"
#include "common/sandbox.h"
#include "common/subprocess.h"

namespace headway::pool {

struct PoolJob {
  std::string label;              // for logs and status, e.g. "time attn_out (2 arms)"
  std::vector<std::string> argv;  // argv[0] searched in PATH
  double timeout_seconds = 60.0;  // the whole process group is killed at this limit
  std::string cwd;                // without a policy: the working directory (empty: inherit)
  std::optional<sandbox::Policy> policy;  // run inside the sandbox under this policy
  // With a policy: the run's --no-sandbox (sandbox::Mode::kDisabled), which the worker adopts.
  bool sandbox_disabled = false;
};

// What a pool reports of a job it ran.
struct PoolJobResult {
  ProcessResult process;
  std::string worker;             // "local", or the worker's name and node: "w2 on dev3"
  int attempts = 1;               // 1 + runs lost with their worker and run again
  double queued_seconds = 0.0;    // from run() until a device took the job
  double run_seconds = 0.0;       // the process's own wall time, on the device
  double transfer_seconds = 0.0;  // the rest of the round trip: sending the job and its result
};

nlohmann::json job_to_json(const PoolJob& job);
Result<PoolJob> job_from_json(const nlohmann::json& json);
nlohmann::json process_result_to_json(const ProcessResult& result);
Result<ProcessResult> process_result_from_json(const nlohmann::json& json);
// A job's result as a study's pool broker (pool_broker.h) sends it to the run that asked.
nlohmann::json job_result_to_json(const PoolJobResult& result);
Result<PoolJobResult> job_result_from_json(const nlohmann::json& json);

// Runs the job on this machine (in the sandbox when it has a policy) and returns its wall time
// in *seconds. Throws sandbox::Unavailable as run_process does.
ProcessResult run_job_here(const PoolJob& job, double* seconds = nullptr);

}  // namespace headway::pool
