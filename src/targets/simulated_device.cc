#include "targets/simulated_device.h"

#include <fmt/format.h>

#include <cmath>

#include "targets/side_by_side.h"

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
  simulated_seconds_ += seconds;
  return seconds;
}

nlohmann::json SimulatedSession::accounting() const {
  return {{"timed_seconds", simulated_seconds_}};
}

std::optional<ArmBreach> SimulatedSession::verify_arms() {
  for (const size_t k : read_) {
    checked_.insert(k);
    if (cheats_[k]) return ArmBreach{static_cast<int>(k), cheat_found_};
  }
  return std::nullopt;
}

std::optional<ArmBreach> SimulatedSession::verify_arm(int arm) {
  const auto k = static_cast<size_t>(arm);
  if (!read_.count(k)) return std::nullopt;
  checked_.insert(k);
  if (cheats_[k]) return ArmBreach{arm, cheat_found_};
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
  simulated_seconds_ += seconds;
  return seconds;
}

nlohmann::json SimulatedPairedDevice::accounting() const {
  return {{"timed_seconds", simulated_seconds_}};
}

void SimulatedPairedDevice::verify_arms() {
  if (head_cheats_) throw statistics::ArmDisqualified(statistics::Arm::kHead, cheat_found_);
  if (candidate_cheats_)
    throw statistics::ArmDisqualified(statistics::Arm::kCandidate, cheat_found_);
}

Result<std::unique_ptr<Session>> simulated_session(const std::vector<Artifact>& artifacts,
                                                   const std::vector<SimulatedArm>& arms,
                                                   uint64_t seed, SimulatedReadings readings) {
  std::vector<double> seconds;
  std::vector<bool> cheating;
  for (size_t i = 0; i < arms.size(); ++i) {
    if (!arms[i].runs) {
      return invalid_input(
          fmt::format("cannot start {}: it does not run correctly", artifacts.at(i).id));
    }
    seconds.push_back(arms[i].seconds);
    cheating.push_back(arms[i].cheats);
  }
  return std::unique_ptr<Session>(std::make_unique<SimulatedSession>(
      std::move(seconds), std::move(cheating), readings.cv, seed, std::move(readings.budget),
      std::move(readings.cheat_found), std::move(readings.hold)));
}

Result<std::unique_ptr<statistics::PairedDevice>> simulated_paired_device(
    const SimulatedArm& head, const SimulatedArm& candidate, uint64_t seed,
    SimulatedReadings readings) {
  if (!head.runs || !candidate.runs) return invalid_input("an arm does not run correctly");
  statistics::SimConfig c;
  c.head_seconds = head.seconds;
  c.effect_pct = 100.0 * (1.0 - candidate.seconds / head.seconds);
  c.cv = readings.cv;
  c.seed = seed;
  if (auto valid = statistics::validate(c); !valid) return valid.error();
  return std::unique_ptr<statistics::PairedDevice>(std::make_unique<SimulatedPairedDevice>(
      c, head.cheats, candidate.cheats, std::move(readings.budget), std::move(readings.cheat_found),
      std::move(readings.hold)));
}

std::vector<Timing> time_simulated_side_by_side(Result<std::unique_ptr<Session>> started,
                                                const std::vector<Artifact>& artifacts,
                                                int readings) {
  if (!started) {
    std::vector<Timing> out(artifacts.size());
    for (auto& t : out) t.failure = started.error().message;
    return out;
  }
  return read_side_by_side(*started.value(), artifacts, readings);
}

}  // namespace headway::targets
