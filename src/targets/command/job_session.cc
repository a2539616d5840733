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
    std::vector<size_t> order = others;
    order.insert(order.begin() + static_cast<std::ptrdiff_t>(rng_.next_u64() % (order.size() + 1)),
                 k);
    std::vector<fs::path> paths;
    for (size_t a : order) paths.push_back(arms_[a]);
    const auto start = Clock::now();
    const JobResult r = runner_.run(kernel_, paths, mix_seed(seed_, static_cast<uint64_t>(jobs_)));
    seconds_ += std::chrono::duration<double>(Clock::now() - start).count();
    ++jobs_;
    for (size_t j = 0; j < order.size(); ++j) {
      if (r.seconds[j]) {
        buffered_[order[j]].push_back(*r.seconds[j]);
      } else {
        out_[order[j]] = r.failure.empty()
                             ? fmt::format("no reading in time job {}", runner_.stats().jobs)
                             : r.failure;
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
  const JobResult r = job({first, second});
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
