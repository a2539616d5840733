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
  std::optional<ArmBreach> verify_arm(int arm) override;
  // Arms whose readings verify_arms or verify_arm checked.
  const std::set<size_t>& checked() const { return checked_; }
  // {"timed_seconds": the simulated seconds of its readings so far}: the device time it took.
  nlohmann::json accounting() const override;

 private:
  std::vector<double> seconds_;
  std::vector<bool> cheats_;
  double cv_;
  ReadingBudget budget_;
  std::string cheat_found_;
  HoldDevice hold_;
  std::vector<Rng> rngs_;
  std::set<size_t> read_;     // arms read so far
  std::set<size_t> checked_;  // arms checked so far
  double simulated_seconds_ = 0.0;
};

// What a simulated target knows of an artifact: whether it runs correctly, its true time, and
// whether it cheats.
struct SimulatedArm {
  bool runs = true;
  double seconds = 0.0;
  bool cheats = false;
};

// How a simulated target's device reads: its noise, its budget, what finds a cheat out, and
// what holds a device for a reading (may be empty).
struct SimulatedReadings {
  double cv = 0.01;
  ReadingBudget budget;
  std::string cheat_found;
  HoldDevice hold;
};

// A session of `arms` (the artifacts', in order); an error naming an artifact that does not run.
Result<std::unique_ptr<Session>> simulated_session(const std::vector<Artifact>& artifacts,
                                                   const std::vector<SimulatedArm>& arms,
                                                   uint64_t seed, SimulatedReadings readings);
// A paired device of `head` and `candidate`; an error when an arm does not run.
Result<std::unique_ptr<statistics::PairedDevice>> simulated_paired_device(
    const SimulatedArm& head, const SimulatedArm& candidate, uint64_t seed,
    SimulatedReadings readings);
// Target::time_side_by_side on the session `started` (read_side_by_side), or its error as every
// artifact's failure.
std::vector<Timing> time_simulated_side_by_side(Result<std::unique_ptr<Session>> started,
                                                const std::vector<Artifact>& artifacts,
                                                int readings);

// The acceptance test's pairs on a statistics::SimDevice, within the budget.
class SimulatedPairedDevice final : public statistics::PairedDevice {
 public:
  SimulatedPairedDevice(const statistics::SimConfig& config, bool head_cheats,
                        bool candidate_cheats, ReadingBudget budget, std::string cheat_found,
                        HoldDevice hold = {});
  double run_once(statistics::Arm arm, nlohmann::json* clock_out) override;
  int64_t now_ns() override { return device_.now_ns(); }
  void verify_arms() override;
  // {"timed_seconds": the simulated seconds of its readings so far}: the device time it took.
  nlohmann::json accounting() const override;
  const statistics::SimDevice& device() const { return device_; }

 private:
  statistics::SimDevice device_;
  bool head_cheats_, candidate_cheats_;
  ReadingBudget budget_;
  std::string cheat_found_;
  HoldDevice hold_;
  double simulated_seconds_ = 0.0;
};

}  // namespace headway::targets
