#include "targets/simulated_device.h"

#include <fmt/format.h>

#include <cmath>

namespace headway::targets {

ReadingBudget::ReadingBudget(std::shared_ptr<std::atomic<int64_t>> served,
                             std::optional<int64_t> limit, std::string device)
    : served_(std::move(served)), limit_(limit), device_(std::move(device)) {}

void ReadingBudget::take() {
  int64_t n = served_->load();
  do {
    if (limit_ && n >= *limit_) {
      throw DeviceStopped(
          fmt::format("the {} stopped: its budget of {} readings is spent", device_, *limit_));
    }
  } while (!served_->compare_exchange_weak(n, n + 1));
}

SimulatedSession::SimulatedSession(std::vector<double> seconds, std::vector<bool> cheats, double cv,
                                   uint64_t seed, ReadingBudget budget, std::string cheat_found,
                                   HoldDevice hold)
    : seconds_(std::move(seconds)),
      cheats_(std::move(cheats)),
      cv_(cv),
      budget_(std::move(budget)),
      cheat_found_(std::move(cheat_found)),
      hold_(std::move(hold)) {
  for (size_t i = 0; i < seconds_.size(); ++i) rngs_.emplace_back(mix_seed(seed, i));
}

Result<double> SimulatedSession::reading(int i) {
  budget_.take();
  const auto k = static_cast<size_t>(i);
  read_.insert(k);
  const double seconds = seconds_.at(k) * std::exp(cv_ * rngs_.at(k).normal());
  if (hold_) hold_(seconds);
  return seconds;
}

std::optional<ArmBreach> SimulatedSession::verify_arms() {
  for (const size_t k : read_) {
    if (cheats_[k]) return ArmBreach{static_cast<int>(k), cheat_found_};
  }
  return std::nullopt;
}

SimulatedPairedDevice::SimulatedPairedDevice(const statistics::SimConfig& config, bool head_cheats,
                                             bool candidate_cheats, ReadingBudget budget,
                                             std::string cheat_found, HoldDevice hold)
    : device_(config),
      head_cheats_(head_cheats),
      candidate_cheats_(candidate_cheats),
      budget_(std::move(budget)),
      cheat_found_(std::move(cheat_found)),
      hold_(std::move(hold)) {}

double SimulatedPairedDevice::run_once(statistics::Arm arm, nlohmann::json* clock_out) {
  budget_.take();
  const double seconds = device_.run_once(arm, clock_out);
  if (hold_) hold_(seconds);
  return seconds;
}

void SimulatedPairedDevice::verify_arms() {
  if (head_cheats_) throw statistics::ArmDisqualified(statistics::Arm::kHead, cheat_found_);
  if (candidate_cheats_)
    throw statistics::ArmDisqualified(statistics::Arm::kCandidate, cheat_found_);
}

}  // namespace headway::targets
