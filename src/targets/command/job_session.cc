#include "targets/command/job_session.h"

#include <fmt/format.h>

#include <algorithm>
#include <chrono>

namespace headway::command {

namespace fs = std::filesystem;
using Clock = std::chrono::steady_clock;

JobSession::JobSession(JobRunner& runner, std::string kernel, std::vector<fs::path> arms,
                       uint64_t seed, int max_arms)
    : runner_(runner),
      kernel_(std::move(kernel)),
      arms_(std::move(arms)),
      seed_(seed),
      max_arms_(std::max(1, max_arms)),
      buffered_(arms_.size()),
      out_(arms_.size()),
      rng_(mix_seed(seed, 0x6a6f6273)) {}

Result<double> JobSession::reading(int i) {
  const auto k = static_cast<size_t>(i);
  if (!out_.at(k).empty()) return environment_error(out_[k]);
  if (buffered_[k].empty()) {
    std::vector<size_t> others;
    for (size_t a = 0; a < arms_.size(); ++a) {
      if (a != k && out_[a].empty() && buffered_[a].empty()) others.push_back(a);
    }
    for (size_t a = others.size(); a > 1; --a)
      std::swap(others[a - 1], others[rng_.next_u64() % a]);
    others.resize(std::min(others.size(), static_cast<size_t>(max_arms_ - 1)));
    // One job on each device at once, each with the same arms in an order of its own.
    std::vector<std::vector<size_t>> orders;
    std::vector<JobRunner::JobSpec> jobs;
    for (int j = 0; j < runner_.parallel_jobs(); ++j) {
      std::vector<size_t> order = others;
      for (size_t a = order.size(); a > 1; --a) std::swap(order[a - 1], order[rng_.next_u64() % a]);
      order.insert(
          order.begin() + static_cast<std::ptrdiff_t>(rng_.next_u64() % (order.size() + 1)), k);
      JobRunner::JobSpec spec;
      for (size_t a : order) spec.arms.push_back(arms_[a]);
      spec.seed = mix_seed(seed_, static_cast<uint64_t>(jobs_++));
      orders.push_back(std::move(order));
      jobs.push_back(std::move(spec));
    }
    const auto start = Clock::now();
    const std::vector<JobResult> results = runner_.run_many(kernel_, jobs);
    seconds_ += std::chrono::duration<double>(Clock::now() - start).count();
    for (size_t job = 0; job < results.size(); ++job) {
      for (size_t j = 0; j < orders[job].size(); ++j) {
        const size_t arm = orders[job][j];
        if (results[job].seconds[j]) {
          if (out_[arm].empty()) buffered_[arm].push_back(*results[job].seconds[j]);
        } else if (out_[arm].empty()) {
          out_[arm] = results[job].failure.empty()
                          ? fmt::format("no reading in a time job of {} ({} jobs so far)", kernel_,
                                        runner_.stats().jobs)
                          : results[job].failure;
          buffered_[arm].clear();
        }
      }
    }
    if (!out_[k].empty()) return environment_error(out_[k]);
  }
  const double v = buffered_[k].front();
  buffered_[k].pop_front();
  return v;
}

nlohmann::json JobSession::accounting() const { return {{"timed_seconds", seconds_}}; }

JobPairedDevice::JobPairedDevice(JobRunner& runner, std::string kernel, fs::path head,
                                 fs::path candidate, uint64_t seed)
    : runner_(runner),
      kernel_(std::move(kernel)),
      head_(std::move(head)),
      candidate_(std::move(candidate)),
      seed_(seed) {}

JobResult JobPairedDevice::job(const std::vector<fs::path>& arms) {
  const auto start = Clock::now();
  JobResult r = runner_.run(kernel_, arms, mix_seed(seed_, static_cast<uint64_t>(jobs_)));
  seconds_ += std::chrono::duration<double>(Clock::now() - start).count();
  ++jobs_;
  return r;
}

int JobPairedDevice::pairs_at_once() const { return runner_.parallel_jobs(); }

void JobPairedDevice::prepare_pairs(const std::vector<statistics::Arm>& firsts) {
  std::vector<JobRunner::JobSpec> jobs;
  for (statistics::Arm first : firsts) {
    JobRunner::JobSpec spec;
    spec.arms = first == statistics::Arm::kHead ? std::vector<fs::path>{head_, candidate_}
                                                : std::vector<fs::path>{candidate_, head_};
    spec.seed = mix_seed(seed_, static_cast<uint64_t>(jobs_++));
    jobs.push_back(std::move(spec));
  }
  const auto start = Clock::now();
  std::vector<JobResult> results = runner_.run_many(kernel_, jobs);
  seconds_ += std::chrono::duration<double>(Clock::now() - start).count();
  prepared_.clear();
  for (size_t i = 0; i < firsts.size(); ++i)
    prepared_.emplace_back(firsts[i], std::move(results[i]));
}

double JobPairedDevice::run_once(statistics::Arm arm, nlohmann::json* clock_out) {
  using statistics::Arm;
  if (pending_ && pending_->first == arm) {
    const double v = pending_->second;
    pending_.reset();
    if (clock_out) *clock_out = {{"job", runner_.stats().jobs}, {"position", 1}};
    return v;
  }
  pending_.reset();
  const Arm other = arm == Arm::kHead ? Arm::kCandidate : Arm::kHead;
  const fs::path& first = arm == Arm::kHead ? head_ : candidate_;
  const fs::path& second = arm == Arm::kHead ? candidate_ : head_;
  JobResult r;
  if (!prepared_.empty() && prepared_.front().first == arm) {
    r = std::move(prepared_.front().second);
    prepared_.pop_front();
  } else {
    prepared_.clear();  // not the pairs announced: what was prepared is not used
    r = job({first, second});
  }
  const std::optional<double> head = arm == Arm::kHead ? r.seconds[0] : r.seconds[1];
  const std::optional<double> cand = arm == Arm::kHead ? r.seconds[1] : r.seconds[0];
  if (!cand) {
    const std::string why =
        r.failure.empty() ? "the candidate gave no reading in its time job" : r.failure;
    if (!head) {
      // Neither arm read: run the head alone to tell whose fault it was.
      const JobResult alone = job({head_});
      if (!alone.seconds[0])
        throw std::runtime_error("the head fails in a time job of its own: " + alone.failure);
    }
    throw statistics::ArmDisqualified(Arm::kCandidate, why);
  }
  if (!head)
    throw statistics::ArmDisqualified(
        Arm::kHead, r.failure.empty() ? "the head gave no reading in its time job" : r.failure);
  pending_ = std::make_pair(other, arm == Arm::kHead ? *cand : *head);
  if (clock_out) *clock_out = {{"job", runner_.stats().jobs}, {"position", 0}};
  return arm == Arm::kHead ? *head : *cand;
}

nlohmann::json JobPairedDevice::accounting() const { return {{"timed_seconds", seconds_}}; }

}  // namespace headway::command
