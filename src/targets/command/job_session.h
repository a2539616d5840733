#pragma once
// Timing through jobs (job_runner.h): a racing session over several arms, and the paired device
// of the acceptance test, which runs head and candidate inside one job in the order the coin
// chose and hands out the second reading on the next call.
#include <cstdint>
#include <deque>
#include <filesystem>
#include <optional>
#include <string>
#include <vector>

#include "common/rng.h"
#include "statistics/pair_runner.h"
#include "targets/command/job_runner.h"
#include "targets/target.h"

namespace headway::command {

// Arms read through jobs. A reading of an arm with none buffered runs one job of every arm
// with no reading buffered (at most max_arms, the asked arm among them) in a seeded random
// order, one such job on each device of the runner's pool at once; the others' readings wait in
// their buffers. An arm without a reading in a job is out
// of the session. Throws targets::DeviceStopped (the budget, a failing device).
class JobSession final : public targets::Session {
 public:
  JobSession(JobRunner& runner, std::string kernel, std::vector<std::filesystem::path> arms,
             uint64_t seed, int max_arms);
  int arms() const override { return static_cast<int>(arms_.size()); }
  Result<double> reading(int i) override;
  nlohmann::json accounting() const override;
  int jobs() const { return jobs_; }

 private:
  JobRunner& runner_;
  std::string kernel_;
  std::vector<std::filesystem::path> arms_;
  uint64_t seed_;
  int max_arms_;
  std::vector<std::deque<double>> buffered_;
  std::vector<std::string> out_;  // non-empty: why the arm is out
  Rng rng_;
  int jobs_ = 0;
  double seconds_ = 0.0;
};

// Head and candidate in one job per pair: run_once(first) runs [first, other] and returns the
// first arm's reading; run_once(other) then returns the buffered one (begin_pair() drops a
// reading left over, e.g. from warm-up readings of one arm). A job that gives the
// candidate no reading disqualifies it (statistics::ArmDisqualified); one that gives neither arm a
// reading is followed by a job of the head alone, to tell whose fault it was.
class JobPairedDevice final : public statistics::PairedDevice {
 public:
  JobPairedDevice(JobRunner& runner, std::string kernel, std::filesystem::path head,
                  std::filesystem::path candidate, uint64_t seed);
  double run_once(statistics::Arm arm, nlohmann::json* clock_out) override;
  void begin_pair() override { pending_.reset(); }
  // One pair a device of the runner's pool: prepared pairs run at once, one job each.
  int pairs_at_once() const override;
  void prepare_pairs(const std::vector<statistics::Arm>& firsts) override;
  nlohmann::json accounting() const override;
  int jobs() const { return jobs_; }

 private:
  JobResult job(const std::vector<std::filesystem::path>& arms);

  JobRunner& runner_;
  std::string kernel_;
  std::filesystem::path head_, candidate_;
  uint64_t seed_;
  std::optional<std::pair<statistics::Arm, double>> pending_;
  std::deque<std::pair<statistics::Arm, JobResult>> prepared_;  // pairs run ahead, in order
  int jobs_ = 0;
  double seconds_ = 0.0;
};

}  // namespace headway::command
