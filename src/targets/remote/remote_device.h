#pragma once
// A target's device work sent to a device pool as device jobs (device_job.h): what the cpu and
// cuda targets do once given a pool (Target::use_pool). Each job runs on one device of the pool,
// in one process of the target there, so whatever a job reads is read on one device:
//   - a check is one job;
//   - a session (a race) reads its arms through jobs of `rounds_per_job` rounds over every arm
//     still in, one such job on each device at once; each job verifies its arms' readings before
//     it ends, and an arm found breaking a rule is out with its breach;
//   - a paired device runs `pairs_per_job` pairs a job, with the orders the acceptance test drew,
//     one job on each device at once: a pair never leaves its device, and the test sees the
//     pairs in its own order. Each job verifies both arms before it ends; a confirmation runs
//     jobs of the candidate's checked readings alone.
// A session's jobs, and a paired device's, all run on devices of one model (Target::
// device_model): a pool of mixed models never compares readings across them. A job that a device
// of another model takes is refused there and run again until one of the model takes it (up to
// the job's time limit).
// Thread-safety: one RemoteDevice serves sessions and paired devices on several threads at once
// (the pool is thread-safe); each session or paired device is used by one thread.
#include <atomic>
#include <memory>
#include <mutex>
#include <nlohmann/json.hpp>
#include <set>
#include <string>
#include <vector>

#include "pool/device_pool.h"
#include "targets/target.h"

namespace headway::remote {

struct RemoteOptions {
  std::string binary;  // the headway the workers run (on the shared filesystem)
  std::string target;  // the target's name and its toolchain's spec, for make_target there
  std::string toolchain;
  bool one_core = false;  // Target::time_on_one_core there
  int rounds_per_job = 3;
  int pairs_per_job = 4;
  int confirming_readings_per_job = 4;
  double job_timeout_seconds = 900.0;
};

// Adds every number of a job's `part` (an object of "<activity>_seconds") to the same field of
// `sum`, and one to its "jobs".
void add_job_accounting(nlohmann::json& sum, const nlohmann::json& part);

// $HEADWAY_DEVICE_JOB_BINARY when set (tests, whose own binary is not headway), else this
// process's own executable.
std::string device_job_binary();

class RemoteDevice {
 public:
  RemoteDevice(std::shared_ptr<pool::DevicePool> pool, RemoteOptions options);

  int devices() const { return pool_->devices(); }
  const RemoteOptions& options() const { return options_; }
  void set_one_core(bool on) { options_.one_core = on; }

  targets::CheckOutcome check(const KernelContract& kernel, const targets::Artifact& artifact,
                              const targets::CheckOptions& options);
  std::unique_ptr<targets::Session> start_session(const KernelContract& kernel,
                                                  const std::vector<targets::Artifact>& artifacts,
                                                  uint64_t seed);
  std::vector<targets::Timing> time_side_by_side(const KernelContract& kernel,
                                                 const std::vector<targets::Artifact>& artifacts,
                                                 int readings, uint64_t seed);
  // `slowed`/`slowdown`: readings of that arm lengthened by that fraction (calibration's known
  // effect); 0 for none.
  std::unique_ptr<statistics::PairedDevice> paired_device(
      const KernelContract& kernel, const targets::Artifact& head,
      const targets::Artifact& candidate, uint64_t seed,
      statistics::Arm slowed = statistics::Arm::kHead, double slowdown = 0.0);
  // On a device of options.model when it is set (a facts job pinned to it), else on any. Throws
  // std::invalid_argument when no device of the pool is of options.model (device_models).
  std::vector<targets::ChipFact> measure_facts(const targets::FactOptions& options);
  // The models of the pool's devices, sorted: on the first call a job on each device at once
  // (each device that is free takes one) tells them; every reply of any job since adds its
  // device's model.
  std::vector<std::string> device_models();

  // A reply to `request` (device_job.h) from one job, with the worker that ran it in "worker".
  // Throws targets::DeviceStopped when the pool stopped, the job did not run to its end or its
  // reply says the device stopped; targets::DeviceUnavailable when it says there is no device.
  nlohmann::json run(const std::string& label, nlohmann::json request);
  // One job per request, all at once on the pool's devices; replies in order. Throws the first
  // failure after every job has ended.
  std::vector<nlohmann::json> run_many(const std::string& label,
                                       std::vector<nlohmann::json> requests);
  // run_many with every job on a device of one model: `model`, or when it is empty the model of
  // the first reply, which it is set to; a job that ran on another model is run again pinned to
  // it (its reply dropped).
  std::vector<nlohmann::json> run_pinned(const std::string& label,
                                         std::vector<nlohmann::json> requests, std::string& model);

 private:
  nlohmann::json request(const std::string& op, const KernelContract* kernel,
                         const std::vector<targets::Artifact>& artifacts, uint64_t seed) const;
  std::shared_ptr<pool::DevicePool> pool_;
  RemoteOptions options_;
  std::mutex models_mutex_;
  std::set<std::string> models_seen_;  // every reply's device model
  std::mutex probe_mutex_;
  bool models_probed_ = false;  // under probe_mutex_
};

}  // namespace headway::remote
