#include "statistics/calibration.h"

#include <fmt/format.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <exception>
#include <stdexcept>
#include <vector>

#include "common/sandbox.h"
#include "common/stats.h"
#include "statistics/reference_rule.h"

namespace headway::statistics {

const OutcomeCount& CalibrationReport::of(Outcome outcome) const {
  for (const OutcomeCount& o : outcomes) {
    if (o.outcome == outcome) return o;
  }
  throw std::logic_error("CalibrationReport::of: outcome missing");
}

CalibrationReport run_calibration(const CalibrationConfig& config, const DeviceFactory& device,
                                  const RuleFactory& rule) {
  if (config.decisions < 1) throw std::invalid_argument("run_calibration: decisions must be >= 1");
  std::array<int64_t, 4> counts{};
  int64_t total_pairs = 0;
  ReadingStatsAccumulator stats;
  MemorySink memory;
  TeeSink sink({&memory, config.log});
  nlohmann::json device_time;
  const auto start = std::chrono::steady_clock::now();
  for (int i = 0; i < config.decisions; ++i) {
    std::unique_ptr<PairedDevice> dev = device(i);
    if (!dev) throw std::runtime_error(fmt::format("no device for decision {}", i));
    std::unique_ptr<DecisionRule> r = rule();
    Rng coin(mix_seed(config.seed ^ kCoinStream, static_cast<uint64_t>(i)));
    memory.clear();
    const DecisionRecord record =
        run_decision(*dev, *r, coin, PairLabel{config.kernel, config.node, i, 0}, sink);
    dev->verify_arms();
    device_time = dev->accounting();
    ++counts[static_cast<size_t>(record.outcome)];
    total_pairs += static_cast<int64_t>(record.d.size());
    stats.add_decision(memory.readings());
  }
  CalibrationReport report;
  report.decisions = config.decisions;
  for (size_t k = 0; k < kAllOutcomes.size(); ++k) {
    OutcomeCount& o = report.outcomes[k];
    o.outcome = kAllOutcomes[k];
    o.count = counts[static_cast<size_t>(o.outcome)];
    o.rate = static_cast<double>(o.count) / static_cast<double>(config.decisions);
    o.ci95 = clopper_pearson(o.count, config.decisions, 0.95);
  }
  report.faster_upper95 =
      clopper_pearson_upper(report.of(Outcome::kFaster).count, config.decisions, 0.95);
  report.mean_pairs = static_cast<double>(total_pairs) / static_cast<double>(config.decisions);
  report.stats = stats.result();
  report.device_time = device_time;
  report.wall_seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  return report;
}

Result<double> estimate_s0(PairedDevice& device, int readings) {
  if (readings < 3) {
    return invalid_input(fmt::format("the warm-up needs at least 3 readings, got {}", readings));
  }
  std::vector<double> ln;
  // A device of several devices reads the warm-up at once.
  if (device.pairs_at_once() > 1) device.prepare_pairs(std::vector<Arm>(readings, Arm::kHead));
  for (int i = 0; i < readings; ++i) {
    nlohmann::json clock;
    const double t = device.run_once(Arm::kHead, &clock);
    if (!std::isfinite(t) || t <= 0.0) {
      return invalid_input(fmt::format("warm-up reading {} is invalid ({} s)", i, t));
    }
    ln.push_back(std::log(t));
  }
  const double s0 = s0_from_log_times(ln);
  if (!(s0 > 0.0)) {
    return invalid_input("the warm-up readings do not vary; give s0 explicitly (--s0)");
  }
  return s0;
}

double s0_from_log_times(std::span<const double> ln) {
  std::vector<double> diffs;
  for (size_t i = 1; i < ln.size(); ++i) diffs.push_back(std::fabs(ln[i] - ln[i - 1]));
  return kNormalSdPerMad * median(diffs);
}

Status validate(const CalibrateRequest& r) {
  if (r.decisions < 1)
    return invalid_input(fmt::format("decisions must be at least 1, got {}", r.decisions));
  if (!(r.cv > 0.0) || !std::isfinite(r.cv)) {
    return invalid_input(fmt::format("cv must be positive, got {}%", 100.0 * r.cv));
  }
  if (!(r.effect_pct < 100.0) || !std::isfinite(r.effect_pct)) {
    return invalid_input(fmt::format("effect must be below 100%, got {}%", r.effect_pct));
  }
  if (!(r.alpha > 0.0 && r.alpha < 1.0)) {
    return invalid_input(fmt::format("alpha must be in (0, 1), got {}", r.alpha));
  }
  if (r.cap < 2)
    return invalid_input(fmt::format("the pair cap must be at least 2, got {}", r.cap));
  if (r.s0 && (!(*r.s0 > 0.0) || !std::isfinite(*r.s0))) {
    return invalid_input(fmt::format("s0 must be positive, got {}", *r.s0));
  }
  if (r.warmup_readings < 3) {
    return invalid_input(
        fmt::format("the warm-up needs at least 3 readings, got {}", r.warmup_readings));
  }
  return {};
}

Result<CalibrateResult> calibrate(const CalibrateRequest& request,
                                  const DeviceFactoryMaker& devices,
                                  std::optional<double> known_s0) {
  if (auto valid = validate(request); !valid) return valid.error();
  CalibrateResult result;
  result.request = request;
  try {
    const DeviceFactory factory = devices(request);
    if (!factory)
      return invalid_input(fmt::format("target '{}' gave no device factory", request.target));
    if (request.s0) {
      result.s0 = *request.s0;
      result.s0_source = "--s0";
    } else if (!takes_s0(request.rule)) {
      result.s0_source = "not used by the rule";
    } else if (known_s0) {
      result.s0 = *known_s0;
      result.s0_source = "configured cv";
    } else {
      std::unique_ptr<PairedDevice> warmup = factory(0);
      if (!warmup) return invalid_input(fmt::format("target '{}' gave no device", request.target));
      const Result<double> s0 = estimate_s0(*warmup, request.warmup_readings);
      if (!s0.ok()) return s0.error();
      result.s0 = s0.value();
      result.s0_source = fmt::format("warm-up of {} head readings", request.warmup_readings);
    }
    result.s0_adapted = request.adapt_s0.value_or(!request.s0 && !known_s0);
    RuleSettings settings;
    settings.kind = request.rule;
    settings.alpha = request.alpha;
    settings.cap = request.cap;
    settings.s0 = result.s0;
    settings.adapt_s0 = result.s0_adapted;
    const Result<RuleFactory> rule = rule_factory(settings);
    if (!rule.ok()) return rule.error();
    CalibrationConfig config;
    config.decisions = request.decisions;
    config.seed = request.seed;
    config.kernel = request.kernel.empty() ? request.target : request.kernel;
    config.node = request.target;
    config.log = request.log;
    result.report = run_calibration(config, factory, rule.value());
  } catch (const sandbox::Unavailable&) {
    throw;  // not a calibration error: the verb refuses to run candidate code
  } catch (const std::exception& e) {
    return environment_error(e.what());
  }
  return result;
}

DeviceFactory sim_device_factory(const CalibrateRequest& request) {
  SimConfig base;
  base.noise = request.noise;
  base.cv = request.cv;
  base.effect_pct = request.effect_pct;
  if (auto valid = validate(base); !valid) throw std::invalid_argument(valid.error().message);
  const uint64_t seed = request.seed;
  return [base, seed](int decision_index) {
    SimConfig config = base;
    config.seed = mix_seed(seed, static_cast<uint64_t>(decision_index));
    return std::make_unique<SimDevice>(config);
  };
}

namespace {

nlohmann::json number(double x) { return std::isfinite(x) ? nlohmann::json(x) : nlohmann::json(); }

}  // namespace

nlohmann::json to_json(const CalibrationReport& report) {
  nlohmann::json j;
  j["decisions"] = report.decisions;
  j["faster_rate"] = report.of(Outcome::kFaster).rate;
  j["faster_rate_upper95"] = report.faster_upper95;
  j["slower_rate"] = report.of(Outcome::kSlower).rate;
  j["same_rate"] = report.of(Outcome::kSame).rate;
  j["inconclusive_rate"] = report.of(Outcome::kInconclusive).rate;
  j["mean_pairs"] = report.mean_pairs;
  j["wall_seconds"] = report.wall_seconds;
  if (!report.device_time.is_null()) j["device_time"] = report.device_time;
  nlohmann::json outcomes = nlohmann::json::object();
  for (const OutcomeCount& o : report.outcomes) {
    outcomes[std::string(to_string(o.outcome))] = {
        {"count", o.count}, {"rate", o.rate}, {"ci95", {o.ci95.lower, o.ci95.upper}}};
  }
  j["outcomes"] = outcomes;
  j["pairs"] = report.stats.pairs;
  j["head_cv"] = number(report.stats.head_cv);
  j["in_pair_rho"] = number(report.stats.in_pair_rho);
  j["lag1_autocorr"] = number(report.stats.lag1_autocorr);
  j["candidate_first_fraction"] = number(report.stats.candidate_first_fraction);
  j["d_negative_fraction"] = number(report.stats.d_negative_fraction);
  j["second_vs_first_pct"] = number(report.stats.second_vs_first_pct);
  return j;
}

nlohmann::json to_json(const CalibrateResult& result) {
  nlohmann::json j = to_json(result.report);
  const CalibrateRequest& r = result.request;
  j["target"] = r.target;
  j["kernel"] = r.kernel.empty() ? r.target : r.kernel;
  j["rule"] = std::string(to_string(r.rule));
  if (r.target == "sim") {
    j["noise"] = std::string(to_string(r.noise));
    j["cv"] = r.cv;
  }
  j["effect_pct"] = r.effect_pct;
  j["alpha"] = r.alpha;
  if (r.rule == RuleKind::kBetting) j["cap"] = r.cap;
  j["seed"] = r.seed;
  j["s0"] = result.s0;
  j["s0_source"] = result.s0_source;
  j["s0_adapted"] = result.s0_adapted;
  return j;
}

}  // namespace headway::statistics
