// `headway calibrate`: many decisions of the acceptance test on a device with a known truth.
#include <fmt/format.h>
#include <unistd.h>

#include <cmath>
#include <cstdio>
#include <memory>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>

#include "cli/cli_support.h"
#include "cli/pool_options.h"
#include "cli/verbs.h"
#include "common/cache_dir.h"
#include "statistics/calibration.h"
#include "statistics/reading_sink.h"
#include "targets/registry/registry.h"

namespace headway::cli {

namespace {

struct CalibrateArgs {
  std::string target;
  std::string toolchain;  // empty: the target's default
  PoolArgs pool;
  std::string kernel;
  int decisions = 300;
  std::string noise = "normal";
  double cv_pct = 0.5;
  double effect_pct = 0.0;
  std::string rule = "betting";
  double alpha = 0.05;
  int cap = 24;
  uint64_t seed = 1;
  std::optional<double> s0_pct;
  int warmup = 16;
  bool fixed_s0 = false;
  bool adapt_s0 = false;
  std::string log;
  bool json = false;
};

std::string pct(double fraction, int digits = 2) {
  if (!std::isfinite(fraction)) return "n/a";
  return fmt::format("{:.{}f}%", 100.0 * fraction, digits);
}

std::string num(double x) { return std::isfinite(x) ? fmt::format("{:+.3f}", x) : "n/a"; }

void print_human(const statistics::CalibrateResult& result) {
  const statistics::CalibrateRequest& q = result.request;
  const statistics::CalibrationReport& r = result.report;
  std::string setup = fmt::format("target {}", q.target);
  if (!q.kernel.empty()) setup += fmt::format(", kernel {}", q.kernel);
  if (q.target == "sim") {
    setup += fmt::format(", noise {}, cv {}", statistics::to_string(q.noise), pct(q.cv));
  }
  setup += fmt::format(", effect {:.2f}% (candidate truly faster when positive)", q.effect_pct);
  fmt::print("calibrate: {}\n", setup);
  std::string rule = fmt::format("rule {}, alpha {}", statistics::to_string(q.rule), q.alpha);
  if (q.rule == statistics::RuleKind::kBetting) {
    rule += fmt::format(", cap {}, s0 {} ({}{})", q.cap, pct(result.s0, 3), result.s0_source,
                        result.s0_adapted ? ", a prior each decision's pairs update" : "");
  } else {
    rule += fmt::format(": {}", statistics::describe(q.rule));
  }
  fmt::print("{}, {} decisions, seed {}\n\n", rule, r.decisions, q.seed);
  fmt::print("{:<13} {:>7} {:>8}   {}\n", "outcome", "count", "rate", "95% interval");
  for (const statistics::OutcomeCount& o : r.outcomes) {
    fmt::print("{:<13} {:>7} {:>8}   [{}, {}]\n", statistics::to_string(o.outcome), o.count,
               pct(o.rate), pct(o.ci95.lower), pct(o.ci95.upper));
  }
  fmt::print("FASTER rate one-sided upper 95% bound: {}\n\n", pct(r.faster_upper95));
  fmt::print("mean pairs per decision        {:.2f}\n", r.mean_pairs);
  fmt::print("wall time                      {:.1f} s ({:.2f} s per decision)\n", r.wall_seconds,
             r.wall_seconds / static_cast<double>(r.decisions));
  if (r.device_time.is_object()) {
    fmt::print("device time                    {}\n", r.device_time.dump());
  }
  fmt::print("head CV (median of decisions)  {}\n", pct(r.stats.head_cv, 3));
  fmt::print("in-pair correlation rho        {}\n", num(r.stats.in_pair_rho));
  fmt::print("lag-1 autocorrelation of d     {}\n", num(r.stats.lag1_autocorr));
  fmt::print("sign balance                   candidate first {}, d < 0 {}\n",
             pct(r.stats.candidate_first_fraction, 1), pct(r.stats.d_negative_fraction, 1));
  fmt::print("second run vs first            {}\n",
             std::isfinite(r.stats.second_vs_first_pct)
                 ? fmt::format("{:+.3f}%", r.stats.second_vs_first_pct)
                 : std::string("n/a"));
}

int run_calibrate(const CalibrateArgs& args) {
  statistics::CalibrateRequest request;
  request.target = args.target;
  request.kernel = args.kernel;
  request.decisions = args.decisions;
  const auto noise = statistics::parse_noise_model(args.noise);
  if (!noise.ok()) fail_with(noise.error());
  request.noise = noise.value();
  request.cv = args.cv_pct / 100.0;
  request.effect_pct = args.effect_pct;
  const auto rule = statistics::parse_rule_kind(args.rule);
  if (!rule.ok()) fail_with(rule.error());
  request.rule = rule.value();
  request.alpha = args.alpha;
  request.cap = args.cap;
  request.seed = args.seed;
  if (args.s0_pct) request.s0 = *args.s0_pct / 100.0;
  request.warmup_readings = args.warmup;
  if (args.fixed_s0) request.adapt_s0 = false;
  if (args.adapt_s0) request.adapt_s0 = true;
  value_or_fail(statistics::validate(request));
  std::unique_ptr<statistics::JsonLinesSink> log;
  if (!args.log.empty()) {
    auto opened = statistics::JsonLinesSink::open(args.log);
    if (!opened.ok()) fail_with(opened.error());
    log = std::move(opened).value();
    request.log = log.get();
  }
  const std::unique_ptr<targets::Target> target = target_or_throw(args.target, args.toolchain);
  // A device pool of its own, in a folder of the build cache (where the artifacts are too).
  const std::shared_ptr<pool::DevicePool> devices =
      start_pool(pool_config(args.pool, nlohmann::json::object()), *target,
                 build_cache_dir() / "pool" / std::to_string(getpid()));
  Result<statistics::CalibrateResult> result = invalid_input("not run");
  try {
    result = targets::calibrate_on_target(request, *target);
  } catch (const targets::DeviceStopped& e) {
    throw EnvironmentError(std::string("the device stopped: ") + e.what());
  }
  if (!result.ok()) fail_with(result.error());
  if (devices) fmt::print(stderr, "{}", pool_text(pool::pool_status_json(*devices)));
  if (args.json) {
    fmt::print("{}\n", statistics::to_json(result.value()).dump(2));
  } else {
    print_human(result.value());
  }
  return 0;
}

}  // namespace

void add_calibrate(CLI::App& app, int* exit_code) {
  auto args = std::make_shared<CalibrateArgs>();
  auto* cmd = app.add_subcommand(
      "calibrate",
      "Run many acceptance-test decisions where the truth is known (A/A or a known "
      "effect) and report how often each outcome came out");
  cmd->add_option("--target", args->target, "sim, or a device target such as cpu")->required();
  cmd->add_option("--kernel", args->kernel, "kernel for a device target (default: its own)");
  cmd->add_option("--toolchain", args->toolchain,
                  "the target's toolchain (cpu: a compiler; command: a pack's manifest)");
  add_pool_options(*cmd, args->pool);
  cmd->add_option("--decisions", args->decisions, "number of decisions (default 300)");
  cmd->add_option("--noise", args->noise,
                  "sim noise: normal, t3, spikes, ar1-drift or step (default normal)");
  cmd->add_option("--cv", args->cv_pct, "sim head CV in percent (default 0.5)");
  cmd->add_option("--effect", args->effect_pct,
                  "candidate truly this % faster; negative: slower (default 0, A/A)");
  cmd->add_option("--rule", args->rule,
                  "betting, reference, threshold or lowest-mean (default betting)");
  cmd->add_option("--alpha", args->alpha, "FASTER/SLOWER error level (default 0.05)");
  cmd->add_option("--cap", args->cap, "betting: INCONCLUSIVE after this many pairs (default 24)");
  cmd->add_option("--seed", args->seed, "seed of the coins and the simulation (default 1)");
  cmd->add_option("--s0", args->s0_pct,
                  "betting scale of d in percent (default: sqrt(2) x cv on sim, a warm-up "
                  "estimate on a device)");
  cmd->add_option("--warmup", args->warmup, "head readings of the s0 warm-up (default 16)");
  auto* fixed = cmd->add_flag("--fixed-s0", args->fixed_s0,
                              "scale every pair by s0 (the default for a given --s0 and a sim's "
                              "cv; a warm-up's s0 is a prior each decision's own pairs update)");
  cmd->add_flag("--adapt-s0", args->adapt_s0,
                "take s0 as a prior each decision's own pairs update (the default for a "
                "warm-up's s0)")
      ->excludes(fixed);
  cmd->add_option("--log", args->log, "write every reading to this JSON-lines file");
  cmd->add_flag("--json", args->json, "print one JSON object");
  cmd->callback([args, exit_code] { run_verb(exit_code, [&] { return run_calibrate(*args); }); });
}

}  // namespace headway::cli
