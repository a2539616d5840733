#pragma once
// Time jobs on a device behind a scheduler: one job runs several built arms in the order given
// and reports one reading per arm (the manifest's time command). Thread-safe: with a device pool,
// jobs run at once on its devices. Jobs count against the
// manifest's budget (jobs, device minutes: the time command's wall time); a job that fails for a
// reason of the device (the manifest's retry policy: an output regex, exit codes) is run again,
// up to max_attempts, and never scored. Every attempt is appended to a job log (JSON lines).
#include <chrono>
#include <cstdint>
#include <filesystem>
#include <mutex>
#include <optional>
#include <string>
#include <vector>

#include "common/subprocess.h"
#include "pool/device_pool.h"
#include "targets/command/pack_manifest.h"

namespace headway::command {

struct JobResult {
  std::vector<std::optional<double>> seconds;  // per arm in the order given; nullopt: no reading
  std::string failure;  // non-empty: the job failed for a reason that is not the device's
  int attempts = 0;     // 1 + retries
};

struct JobStats {
  int64_t jobs = 0;     // attempts run, retries included
  int64_t retried = 0;  // attempts that failed for the device and were run again
  int64_t failed = 0;   // jobs that failed for the candidates' reason
  double device_seconds = 0.0;
};

class JobRunner {
 public:
  // `log` is the job log's path (its folder is created); `scratch` holds one folder per job.
  // Jobs run on `device` when one is given (it outlives the runner), else here.
  JobRunner(const PackManifest& manifest, std::filesystem::path scratch, std::filesystem::path log,
            pool::DevicePool* device = nullptr);

  // Runs one job of `arms` (built artifacts' folders) in that order for `kernel`. Throws
  // targets::DeviceStopped before a job the budget has no room for, and when a job failed for the
  // device max_attempts times.
  JobResult run(const std::string& kernel, const std::vector<std::filesystem::path>& arms,
                uint64_t seed);

  // One job per element of `jobs` (its arms and seed), all at once on the pool's devices, in
  // the order given. Throws the first targets::DeviceStopped after every job has ended.
  struct JobSpec {
    std::vector<std::filesystem::path> arms;
    uint64_t seed = 0;
  };
  std::vector<JobResult> run_many(const std::string& kernel, const std::vector<JobSpec>& jobs);
  // Jobs that run at once: the pool's devices, 1 without a pool.
  int parallel_jobs() const { return device_ ? device_->devices() : 1; }

  JobStats stats() const;
  // The budget left, for messages: "12 of 400 jobs, 0.4 of 30 device minutes used".
  std::string budget_text() const;

 private:
  bool device_fault(const ProcessResult& r) const;
  std::string budget_text_locked() const;
  void log(int64_t job, const std::string& kernel, size_t arms, int attempt,
           const std::string& outcome, const std::string& reason, double seconds);  // mutex_ held

  PackManifest manifest_;  // a copy: the target may re-read its manifest
  std::filesystem::path scratch_;
  std::filesystem::path log_;
  pool::DevicePool* device_;
  mutable std::mutex mutex_;  // stats_ and the log, for jobs running at once
  JobStats stats_;
};

}  // namespace headway::command
