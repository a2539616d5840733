#pragma once
// Calibration: many decisions of one rule on devices with a known truth (A/A, or a known
// effect), reporting how often each outcome came out, with exact binomial intervals, and the
// noise statistics of the readings.
#include <array>
#include <cstdint>
#include <functional>
#include <memory>
#include <nlohmann/json.hpp>
#include <optional>
#include <span>
#include <string>
#include <string_view>

#include "common/result.h"
#include "statistics/betting_rule.h"
#include "statistics/clopper_pearson.h"
#include "statistics/decision_rule.h"
#include "statistics/reading_stats.h"
#include "statistics/rule_kind.h"
#include "statistics/sim_device.h"

namespace headway::statistics {

// A fresh device for decision `decision_index` (0-based). Never returns null.
using DeviceFactory = std::function<std::unique_ptr<PairedDevice>(int decision_index)>;

struct CalibrationConfig {
  int decisions = 300;  // >= 1
  uint64_t seed = 1;    // the coin of decision i is Rng(mix_seed(seed ^ kCoinStream, i))
  std::string kernel = "sim";
  std::string node = "sim";
  ReadingSink* log = nullptr;  // when set, receives every reading (test_id = decision index)
};

inline constexpr uint64_t kCoinStream = 0x636f696eULL;

struct OutcomeCount {
  Outcome outcome = Outcome::kInconclusive;
  int64_t count = 0;
  double rate = 0.0;
  Interval ci95;  // two-sided Clopper-Pearson 95%
};

struct CalibrationReport {
  int64_t decisions = 0;
  std::array<OutcomeCount, 4> outcomes;  // in kAllOutcomes order
  double faster_upper95 = 1.0;  // one-sided Clopper-Pearson 95% upper bound of the FASTER rate
  double mean_pairs = 0.0;
  ReadingStats stats;
  nlohmann::json device_time;  // the last device's accounting (PairedDevice::accounting)
  double wall_seconds = 0.0;   // the whole run of decisions

  const OutcomeCount& of(Outcome outcome) const;
};

// Runs config.decisions decisions: decision i gets device(i), a new rule, and its own coin.
// Requires config.decisions >= 1 (throws std::invalid_argument); device and rule exceptions
// propagate.
CalibrationReport run_calibration(const CalibrationConfig& config, const DeviceFactory& device,
                                  const RuleFactory& rule);

// s0 from a warm-up of `readings` (>= 3) head-only runs: 1.4826 * median |ln t_{i+1} - ln t_i|,
// which is sqrt(2) * CV for independent normal noise and is robust to spikes and slow drift.
// An error when the readings do not vary.
Result<double> estimate_s0(PairedDevice& device, int readings);
// The same scale from log times already taken, in order: 1.4826 * median |ln[i+1] - ln[i]|
// (0 with fewer than two).
double s0_from_log_times(std::span<const double> ln);

// What `headway calibrate` asks for.
struct CalibrateRequest {
  std::string target = "sim";
  std::string kernel;  // empty: the target's own default
  int decisions = 300;
  NoiseModel noise = NoiseModel::kNormal;  // sim only
  double cv = 0.005;                       // sim only; a fraction
  double effect_pct = 0.0;  // candidate truly this % faster (negative: slower); < 100
  RuleKind rule = RuleKind::kBetting;
  double alpha = 0.05;  // betting: FASTER/SLOWER level; reference: per-look level
  int cap = 24;         // betting only (statistics/rule_kind.h has the others' pairs)
  uint64_t seed = 1;
  std::optional<double> s0;  // default: sqrt(2) * cv on sim, estimate_s0 elsewhere
  int warmup_readings = 16;
  // BettingConfig::adapt_s0 for the decisions; nullopt: a warm-up's s0 is a prior the pairs
  // update, a given or configured one is kept fixed.
  std::optional<bool> adapt_s0;
  ReadingSink* log = nullptr;
};

// nullopt when valid, else a one-line message (decisions < 1, cv <= 0, effect >= 100,
// alpha outside (0, 1), cap < 2, s0 <= 0, warm-up < 3).
Status validate(const CalibrateRequest& request);

struct CalibrateResult {
  CalibrateRequest request;
  double s0 = 0.0;
  std::string s0_source;    // "--s0", "configured cv" or "warm-up of N head readings"
  bool s0_adapted = false;  // s0 was a prior that each decision's pairs updated
  CalibrationReport report;
};

// Builds the device factory for one request; may throw (std::exception) to report that the
// request cannot be served, e.g. an unknown kernel. The message reaches the user. A target
// provides one (targets/target.h, Target::calibration_devices).
using DeviceFactoryMaker = std::function<DeviceFactory(const CalibrateRequest&)>;

// Validates, makes the devices with `devices`, settles s0 (request.s0, else `known_s0` when the
// target knows its noise, else a warm-up of head readings, which is then a prior each decision's
// pairs update unless request.adapt_s0 says otherwise) and runs the calibration. Errors:
// invalid request, a factory or device failure (its message).
Result<CalibrateResult> calibrate(const CalibrateRequest& request,
                                  const DeviceFactoryMaker& devices,
                                  std::optional<double> known_s0);

// The simulated devices: decision i gets SimDevice(request's noise, cv, effect_pct;
// seed mix_seed(request.seed, i)). Throws std::invalid_argument for an invalid configuration.
DeviceFactory sim_device_factory(const CalibrateRequest& request);

// {"decisions", "faster_rate", "faster_rate_upper95", "slower_rate", "same_rate",
//  "inconclusive_rate", "mean_pairs", "outcomes": {NAME: {"count", "rate", "ci95": [lo, hi]}},
//  "head_cv", "in_pair_rho", "lag1_autocorr", "candidate_first_fraction", "d_negative_fraction",
//  "second_vs_first_pct", "pairs"}; rates and CV as fractions, NaN as null.
nlohmann::json to_json(const CalibrationReport& report);
// to_json(report) plus "target", "rule", "noise", "cv", "effect_pct", "alpha", "cap", "seed",
// "s0", "s0_source", "kernel".
nlohmann::json to_json(const CalibrateResult& result);

}  // namespace headway::statistics
