#include "statistics/sim_device.h"

#include <fmt/format.h>

#include <cmath>
#include <stdexcept>

namespace headway::statistics {

std::string_view to_string(NoiseModel model) {
  switch (model) {
    case NoiseModel::kNormal:
      return "normal";
    case NoiseModel::kT3:
      return "t3";
    case NoiseModel::kSpikes:
      return "spikes";
    case NoiseModel::kAr1Drift:
      return "ar1-drift";
    case NoiseModel::kStep:
      return "step";
  }
  return "normal";
}

Result<NoiseModel> parse_noise_model(std::string_view name) {
  std::string valid;
  for (NoiseModel m : kAllNoiseModels) {
    if (to_string(m) == name) return m;
    valid += valid.empty() ? "" : ", ";
    valid += to_string(m);
  }
  return invalid_input(fmt::format("unknown noise model '{}' (valid: {})", name, valid));
}

Status validate(const SimConfig& c) {
  if (!(c.head_seconds > 0.0) || !std::isfinite(c.head_seconds)) {
    return invalid_input(fmt::format("head time must be positive, got {}", c.head_seconds));
  }
  if (!(c.effect_pct < 100.0) || !std::isfinite(c.effect_pct)) {
    return invalid_input(fmt::format("effect must be below 100%, got {}%", c.effect_pct));
  }
  if (!(c.cv > 0.0) || !std::isfinite(c.cv)) {
    return invalid_input(fmt::format("cv must be positive, got {}", c.cv));
  }
  if (!(c.spike_probability >= 0.0 && c.spike_probability <= 1.0)) {
    return invalid_input(
        fmt::format("spike probability must be in [0, 1], got {}", c.spike_probability));
  }
  if (!(c.spike_min >= 1.0 && c.spike_max >= c.spike_min)) {
    return invalid_input("spikes need 1 <= spike_min <= spike_max");
  }
  if (!(c.ar_phi >= 0.0 && c.ar_phi < 1.0)) {
    return invalid_input(fmt::format("ar_phi must be in [0, 1), got {}", c.ar_phi));
  }
  if (!std::isfinite(c.drift_per_reading)) return invalid_input("drift must be finite");
  if (!(c.step_size > -1.0) || !std::isfinite(c.step_size)) {
    return invalid_input(fmt::format("step size must be above -1, got {}", c.step_size));
  }
  if (c.step_horizon < 1)
    return invalid_input(fmt::format("step horizon must be >= 1, got {}", c.step_horizon));
  return {};
}

SimDevice::SimDevice(const SimConfig& config) : config_(config), rng_(config.seed) {
  if (auto valid = validate(config); !valid) throw std::invalid_argument(valid.error().message);
  if (config_.noise == NoiseModel::kAr1Drift) ar_state_ = config_.cv * rng_.normal();
  if (config_.noise == NoiseModel::kStep) {
    step_at_ = static_cast<int>(rng_.below(static_cast<uint64_t>(config_.step_horizon)));
  }
}

double SimDevice::true_seconds(Arm arm) const {
  return arm == Arm::kHead ? config_.head_seconds
                           : config_.head_seconds * (1.0 - config_.effect_pct / 100.0);
}

double SimDevice::noise() {
  const double cv = config_.cv;
  switch (config_.noise) {
    case NoiseModel::kNormal:
      return cv * rng_.normal();
    case NoiseModel::kT3:
      return cv * rng_.student_t(3) / std::sqrt(3.0);
    case NoiseModel::kSpikes: {
      double e = cv * rng_.normal();
      if (rng_.uniform() < config_.spike_probability) {
        e += std::log(rng_.uniform(config_.spike_min, config_.spike_max));
      }
      return e;
    }
    case NoiseModel::kAr1Drift: {
      if (readings_ > 0) {
        const double phi = config_.ar_phi;
        ar_state_ = phi * ar_state_ + std::sqrt(1.0 - phi * phi) * cv * rng_.normal();
      }
      return ar_state_ + config_.drift_per_reading * cv * static_cast<double>(readings_);
    }
    case NoiseModel::kStep: {
      const double e = cv * rng_.normal();
      return readings_ >= step_at_ ? e + std::log1p(config_.step_size) : e;
    }
  }
  return 0.0;
}

double SimDevice::run_once(Arm arm, nlohmann::json* /*clock_out*/) {
  const double seconds = true_seconds(arm) * std::exp(noise());
  ++readings_;
  clock_ns_ += static_cast<int64_t>(std::llround(seconds * 1e9)) + 1'000'000;
  return seconds;
}

}  // namespace headway::statistics
