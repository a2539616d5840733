#pragma once
// The device of a target that simulates one (the sim target, the loop tests' target): arms of
// known true times, readings with log-normal noise that are deterministic functions of a seed,
// a budget of readings shared by everything the target started, and arms that cheat: they pass
// every reading and are found out by the verification of their timed calls (a session's
// verify_arms names them, a paired device's verify_arms throws statistics::ArmDisqualified).
#include <atomic>
#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "common/rng.h"
#include "statistics/sim_device.h"
#include "targets/target.h"

namespace headway::targets {

// Counts the readings of a device in `served`, shared by every session and paired device of a
// target; take() throws DeviceStopped once `limit` readings were served (the message names
// `device`). Thread-safe.
class ReadingBudget {
 public:
  ReadingBudget(std::shared_ptr<std::atomic<int64_t>> served, std::optional<int64_t> limit,
                std::string device);
  void take();

 private:
  std::shared_ptr<std::atomic<int64_t>> served_;
  std::optional<int64_t> limit_;
  std::string device_;
};

// Called with each reading's simulated seconds once it is drawn (a pool of simulated devices
// holds one for that long).
using HoldDevice = std::function<void(double seconds)>;

class SimulatedSession final : public Session {
 public:
  // Arm i takes seconds[i] with noise of coefficient `cv`; cheats[i]: the arm cheats and
  // verify_arms names it with `cheat_found` once it was read.
  SimulatedSession(std::vector<double> seconds, std::vector<bool> cheats, double cv, uint64_t seed,
                   ReadingBudget budget, std::string cheat_found, HoldDevice hold = {});
  int arms() const override { return static_cast<int>(seconds_.size()); }
  Result<double> reading(int i) override;
  std::optional<ArmBreach> verify_arms() override;

 private:
  std::vector<double> seconds_;
  std::vector<bool> cheats_;
  double cv_;
  ReadingBudget budget_;
  std::string cheat_found_;
  HoldDevice hold_;
  std::vector<Rng> rngs_;
  std::set<size_t> read_;  // arms read so far
};

// The acceptance test's pairs on a statistics::SimDevice, within the budget.
class SimulatedPairedDevice final : public statistics::PairedDevice {
 public:
  SimulatedPairedDevice(const statistics::SimConfig& config, bool head_cheats,
                        bool candidate_cheats, ReadingBudget budget, std::string cheat_found,
                        HoldDevice hold = {});
  double run_once(statistics::Arm arm, nlohmann::json* clock_out) override;
  int64_t now_ns() override { return device_.now_ns(); }
  void verify_arms() override;
  const statistics::SimDevice& device() const { return device_; }

 private:
  statistics::SimDevice device_;
  bool head_cheats_, candidate_cheats_;
  ReadingBudget budget_;
  std::string cheat_found_;
  HoldDevice hold_;
};

}  // namespace headway::targets
