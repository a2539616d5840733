#include "loop/acceptance.h"

#include <fmt/format.h>

#include <chrono>
#include <stdexcept>

#include "common/rng.h"
#include "loop/device_time.h"
#include "loop/optimize_options.h"
#include "statistics/calibration.h"
#include "statistics/confirmation.h"
#include "statistics/effect_estimate.h"
#include "statistics/mixed_paired_device.h"
#include "trees/decision_log.h"

namespace headway::loop {

namespace {

using Clock = std::chrono::steady_clock;

// How often a test in progress tells where it stands.
constexpr auto kProgressInterval = std::chrono::milliseconds(250);

// The stream a multi-shape test draws its pairs' shape sets from (with the candidate's id).
constexpr uint64_t kShapeStream = 0x5ba9e5;

// Stores every reading of a test in the decision log as it is taken.
class LogSink final : public statistics::ReadingSink {
 public:
  LogSink(trees::DecisionLog& log, int64_t test, int64_t head, int64_t candidate)
      : log_(log), test_(test), head_(head), candidate_(candidate) {}
  void record(const statistics::Reading& r) override {
    trees::TestReading t;
    t.node_id = r.arm == statistics::Arm::kHead ? head_ : candidate_;
    t.pair_index = r.pair_index;
    t.position = r.position;
    t.start_ns = r.start_ns;
    t.seconds = r.seconds;
    t.clock = r.clock;
    if (auto s = log_.record_reading(test_, t); !s) throw std::runtime_error(s.error().message);
  }

 private:
  trees::DecisionLog& log_;
  int64_t test_, head_, candidate_;
};

// The prior scale s0 the latest finished test against `head` started from (kept in its
// candidate's evidence), or nullopt when no such test kept one.
std::optional<double> s0_of_last_test_against(trees::DesignTree& tree, int64_t head) {
  const std::vector<trees::TestRecord> tests = trees::DecisionLog(tree).tests();
  for (auto t = tests.rbegin(); t != tests.rend(); ++t) {
    if (t->head_node != head || !t->outcome) continue;
    const auto node = tree.node(t->candidate_node);
    if (!node || !node->evidence.is_object()) continue;
    const auto config = node->evidence.find("rule_config");
    if (config == node->evidence.end() || !config->is_object()) continue;
    const auto s0 = config->find("s0");
    if (s0 != config->end() && s0->is_number() && s0->get<double>() > 0) return s0->get<double>();
  }
  return std::nullopt;
}

}  // namespace

AcceptanceResult AcceptanceTest::run(const trees::Node& head,
                                     const targets::Artifact& head_artifact,
                                     const trees::Node& candidate,
                                     const targets::Artifact& candidate_artifact) {
  const auto start = Clock::now();
  const auto elapsed = [&] { return std::chrono::duration<double>(Clock::now() - start).count(); };
  // A kernel with several shape sets: each pair runs at one drawn at random, so the decision is
  // over the shape sets together (statistics/mixed_paired_device.h).
  std::vector<std::unique_ptr<statistics::PairedDevice>> devices;
  for (const KernelContract* at : kernel_.shape_sets()) {
    auto paired =
        target_.paired_device(*at, head_artifact, candidate_artifact,
                              run_seeded(static_cast<uint64_t>(candidate.id), options_.run_seed));
    if (!paired) throw std::runtime_error(paired.error().message);
    devices.push_back(std::move(paired.value()));
  }
  std::unique_ptr<statistics::PairedDevice> owned =
      devices.size() == 1
          ? std::move(devices.front())
          : std::make_unique<statistics::MixedPairedDevice>(
                std::move(devices), mix_seed(static_cast<uint64_t>(candidate.id), kShapeStream));
  statistics::PairedDevice& device = *owned;
  AcceptanceResult result;
  // The warm-up that estimates s0 runs once per head: later tests against it start from the
  // same prior, which their pairs update as before.
  std::optional<double> s0;
  if (statistics::takes_s0(options_.rule)) {
    s0 = s0_of_last_test_against(tree_, head.id);
    if (!s0) {
      result.warmup_readings = options_.warmup_readings;
      if (auto estimated = statistics::estimate_s0(device, options_.warmup_readings))
        s0 = estimated.value();
    }
  }
  statistics::RuleSettings settings;
  settings.kind = options_.rule;
  settings.alpha = options_.alpha;
  settings.cap = options_.cap;
  settings.s0 = s0.value_or(options_.fallback_s0);
  settings.adapt_s0 = true;  // the warm-up's estimate is a prior the test's pairs update
  const auto factory = statistics::rule_factory(settings);
  if (!factory) throw std::runtime_error("acceptance rule: " + factory.error().message);
  const std::unique_ptr<statistics::DecisionRule> rule = factory.value()();
  trees::DecisionLog log(tree_);
  auto begun = log.begin_test(candidate.id, std::string(statistics::to_string(options_.rule)));
  if (!begun) throw std::runtime_error("begin test: " + begun.error().message);
  const int64_t test = begun.value();
  LogSink sink(log, test, head.id, candidate.id);
  Rng coin(mix_seed(run_seeded(static_cast<uint64_t>(test), options_.run_seed),
                    statistics::kCoinStream));
  const std::string name(kernel_.name());
  const statistics::PairLabel label{name, std::to_string(candidate.id), test, 0};
  statistics::DecisionRecord record;
  statistics::Confirmation confirmed;
  auto last_told = Clock::now() - kProgressInterval;
  const auto tell = [&](bool always, auto&& line) {
    if (!progress_ || (!always && Clock::now() - last_told < kProgressInterval)) return;
    last_told = Clock::now();
    progress_(line());
  };
  try {
    int decided_at = 0;
    auto decided = statistics::decide_and_confirm(
        device, *rule, coin, label, sink, options_.confirm_calls, options_.confirm_max_pairs,
        [&](int pairs, const statistics::DecisionRule& r) {
          decided_at = pairs;
          tell(false, [&] {
            return fmt::format("acceptance test, pair {} of at most {}: {}", pairs, r.max_pairs(),
                               r.state());
          });
        },
        [&](const statistics::Confirmation& c) {
          // Its start tells the FASTER at once; its runs as often as the interval allows.
          if (c.pairs + c.readings == 0)
            tell(true, [&] { return fmt::format("FASTER at pair {}, confirming", decided_at); });
          tell(false, [&] {
            return fmt::format("FASTER at pair {}, confirming: {} of {} calls verified", decided_at,
                               c.verified_calls, options_.confirm_calls);
          });
        });
    record = std::move(decided.record);
    confirmed = decided.confirmation;
  } catch (const targets::DeviceStopped&) {
    (void)log.abandon_test(test);  // nothing measured after the stop counts
    throw;
  } catch (const statistics::ArmDisqualified& e) {
    (void)log.abandon_test(test);
    if (e.arm() == statistics::Arm::kHead)
      result.head_disqualified = e.what();
    else
      result.disqualified = e.what();
    result.seconds = elapsed();
    add_device_seconds(tree_.workspace(), name, result.seconds, "other", device.accounting());
    return result;
  }
  const auto effect = statistics::estimate_effect(record.d);
  trees::TestDecision decision;
  decision.outcome = record.outcome;
  decision.pairs = static_cast<int64_t>(record.d.size());
  decision.effect_pct = -effect.median_pct;
  decision.ci_low = -effect.upper_pct;
  decision.ci_high = -effect.lower_pct;
  decision.note = statistics::early_stop_note(record.outcome, static_cast<int>(record.d.size()),
                                              rule->max_pairs());
  if (const std::string confirmation = confirmed.describe(); !confirmation.empty())
    decision.note += (decision.note.empty() ? "" : "; ") + confirmation;
  decision.rule_config = statistics::rule_config_json(settings);
  result.seconds = elapsed();
  add_device_seconds(tree_.workspace(), name, result.seconds, "other", device.accounting());
  decision.device_seconds = total_device_seconds(tree_.workspace());
  if (auto finished = log.finish_test(test, decision); !finished)
    throw std::runtime_error("finish test: " + finished.error().message);
  result.outcome = record.outcome;
  result.test_id = test;
  result.pairs = static_cast<int>(record.d.size());
  result.effect_pct = decision.effect_pct;
  return result;
}

}  // namespace headway::loop
