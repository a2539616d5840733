#pragma once
// A simulated paired device with a known true effect and a choice of noise, so that decision
// rules can be checked on thousands of decisions in seconds.
//
// Reading t of an arm (t counts the device's readings, both arms, from 0) takes
//   true_seconds(arm) * exp(e_t)
// where true_seconds(head) = head_seconds and true_seconds(candidate) =
// head_seconds * (1 - effect_pct / 100), and e_t is the noise in log time:
//   normal     cv * z_t
//   t3         cv * T3_t / sqrt(3)                     (Student t, 3 dof, standard deviation cv)
//   spikes     cv * z_t, plus ln U(spike_min, spike_max) on a reading with probability
//              spike_probability (5% of readings 1.5-3x slower)
//   ar1-drift  a_t + drift_per_reading * cv * t, a_t = ar_phi a_{t-1} + sqrt(1 - ar_phi^2) cv z_t
//              (stationary AR(1) with standard deviation cv; the device speeds up by
//              |drift_per_reading| * cv per reading); both arms share the one device state
//   step       cv * z_t, plus ln(1 + step_size) from a reading K on, K uniform in
//              [0, step_horizon) per device
// with z_t independent standard normals. Everything is drawn from `seed`.
#include <array>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include "common/result.h"
#include "common/rng.h"
#include "statistics/pair_runner.h"

namespace headway::statistics {

enum class NoiseModel { kNormal, kT3, kSpikes, kAr1Drift, kStep };

inline constexpr std::array<NoiseModel, 5> kAllNoiseModels{
    NoiseModel::kNormal, NoiseModel::kT3, NoiseModel::kSpikes, NoiseModel::kAr1Drift,
    NoiseModel::kStep};

// "normal", "t3", "spikes", "ar1-drift", "step".
std::string_view to_string(NoiseModel model);
// The inverse of to_string; the error lists the valid names.
Result<NoiseModel> parse_noise_model(std::string_view name);

struct SimConfig {
  double head_seconds = 1e-3;  // > 0
  double effect_pct = 0.0;     // candidate truly this % faster (negative: slower); < 100
  double cv = 0.005;           // base noise, a fraction (0.005 = 0.5%); > 0
  NoiseModel noise = NoiseModel::kNormal;
  uint64_t seed = 1;
  double spike_probability = 0.05;  // in [0, 1]
  double spike_min = 1.5;           // 1 <= spike_min <= spike_max
  double spike_max = 3.0;
  double ar_phi = 0.9;              // in [0, 1)
  double drift_per_reading = -0.2;  // in units of cv per reading
  double step_size = 0.03;          // > -1
  int step_horizon = 48;            // >= 1
};

// nullopt when valid, else a one-line message.
Status validate(const SimConfig& config);

class SimDevice final : public PairedDevice {
 public:
  // Requires validate(config).ok(); throws std::invalid_argument otherwise.
  explicit SimDevice(const SimConfig& config);
  // Leaves *clock_out untouched.
  double run_once(Arm arm, nlohmann::json* clock_out) override;
  // A virtual clock: each reading advances it by its duration plus 1 ms.
  int64_t now_ns() override { return clock_ns_; }

  double true_seconds(Arm arm) const;
  int64_t readings() const { return readings_; }
  int step_at() const { return step_at_; }

 private:
  double noise();

  SimConfig config_;
  Rng rng_;
  int64_t readings_ = 0;
  int64_t clock_ns_ = 0;
  double ar_state_ = 0.0;
  int step_at_ = 0;
};

}  // namespace headway::statistics
