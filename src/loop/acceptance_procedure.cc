#include "loop/acceptance_procedure.h"

#include <fmt/format.h>

#include <chrono>

#include "statistics/calibration.h"
#include "statistics/effect_estimate.h"
#include "statistics/mixed_paired_device.h"

namespace headway::loop {

namespace {

using Clock = std::chrono::steady_clock;

// The stream a multi-shape test draws its pairs' shape sets from (with the device's seed).
constexpr uint64_t kShapeStream = 0x5ba9e5;

// How often a test in progress tells where it stands.
constexpr auto kProgressInterval = std::chrono::milliseconds(250);

// Tells `progress` a line at most every kProgressInterval, or at once when asked to.
class ProgressTeller {
 public:
  explicit ProgressTeller(const std::function<void(const std::string&)>& progress)
      : progress_(progress), last_(Clock::now() - kProgressInterval) {}
  template <typename MakeLine>
  void tell(bool at_once, MakeLine&& line) {
    if (!progress_ || (!at_once && Clock::now() - last_ < kProgressInterval)) return;
    last_ = Clock::now();
    progress_(line());
  }

 private:
  const std::function<void(const std::string&)>& progress_;
  Clock::time_point last_;
};

}  // namespace

Result<std::unique_ptr<statistics::PairedDevice>> open_paired_device(
    targets::Target& target, const KernelContract& kernel, const targets::Artifact& head,
    const targets::Artifact& candidate, uint64_t seed) {
  std::vector<std::unique_ptr<statistics::PairedDevice>> devices;
  for (const KernelContract* at : timed_shape_sets(kernel)) {
    auto paired = target.paired_device(*at, head, candidate, seed);
    if (!paired) return paired.error();
    devices.push_back(std::move(paired.value()));
  }
  if (devices.size() == 1) return std::move(devices.front());
  return std::unique_ptr<statistics::PairedDevice>(std::make_unique<statistics::MixedPairedDevice>(
      std::move(devices), mix_seed(seed, kShapeStream)));
}

Result<PairedVerdict> run_paired_test(statistics::PairedDevice& device,
                                      const AcceptanceOptions& options,
                                      std::optional<double> known_s0, Rng& coin,
                                      const statistics::PairLabel& label,
                                      statistics::ReadingSink& sink,
                                      const std::function<void(const std::string&)>& progress) {
  PairedVerdict verdict;
  std::optional<double> s0 = known_s0;
  if (statistics::takes_s0(options.rule) && !s0) {
    verdict.warmup_readings = options.warmup_readings;
    if (auto estimated = statistics::estimate_s0(device, options.warmup_readings))
      s0 = estimated.value();
  }
  statistics::RuleSettings& settings = verdict.settings;
  settings.kind = options.rule;
  settings.alpha = options.alpha;
  settings.cap = options.cap;
  settings.s0 = s0.value_or(options.fallback_s0);
  settings.adapt_s0 = true;  // the warm-up's estimate is a prior the test's pairs update
  const auto factory = statistics::rule_factory(settings);
  if (!factory) return Error{factory.error().code, "acceptance rule: " + factory.error().message};
  const std::unique_ptr<statistics::DecisionRule> rule = factory.value()();
  ProgressTeller teller(progress);
  int decided_at = 0;
  auto decided = statistics::decide_and_confirm(
      device, *rule, coin, label, sink, options.confirm_calls, options.confirm_max_pairs,
      [&](int pairs, const statistics::DecisionRule& r) {
        decided_at = pairs;
        teller.tell(false, [&] {
          return fmt::format("acceptance test, pair {} of at most {}: {}", pairs, r.max_pairs(),
                             r.state());
        });
      },
      [&](const statistics::Confirmation& c) {
        // Its start tells the FASTER at once; its runs as often as the interval allows.
        if (c.pairs + c.readings == 0)
          teller.tell(true,
                      [&] { return fmt::format("FASTER at pair {}, confirming", decided_at); });
        teller.tell(false, [&] {
          return fmt::format("FASTER at pair {}, confirming: {} of {} calls verified", decided_at,
                             c.verified_calls, options.confirm_calls);
        });
      });
  verdict.record = std::move(decided.record);
  verdict.confirmation = decided.confirmation;
  // The estimate is of d = ln(t_candidate / t_head); time saved is its negation.
  const auto effect = statistics::estimate_effect(verdict.record.d);
  verdict.effect_pct = -effect.median_pct;
  verdict.ci_low_pct = -effect.upper_pct;
  verdict.ci_high_pct = -effect.lower_pct;
  verdict.ci_coverage = effect.coverage;
  verdict.note = statistics::early_stop_note(
      verdict.record.outcome, static_cast<int>(verdict.record.d.size()), rule->max_pairs());
  if (const std::string confirmation = verdict.confirmation.describe(); !confirmation.empty())
    verdict.note += (verdict.note.empty() ? "" : "; ") + confirmation;
  return verdict;
}

}  // namespace headway::loop
