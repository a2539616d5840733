#include "loop/acceptance.h"

#include <chrono>
#include <stdexcept>

#include "common/result.h"
#include "common/rng.h"
#include "loop/device_time.h"
#include "loop/optimize_options.h"
#include "statistics/betting_rule.h"
#include "statistics/calibration.h"
#include "trees/decision_log.h"

namespace headway::loop {

namespace {

using Clock = std::chrono::steady_clock;

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
    value_or_fail(log_.record_reading(test_, t), "record reading");
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
    if (!node || !node->evidence.is_object() || !node->evidence.contains("rule_config")) continue;
    // One parser of a stored rule's settings: the report reads them the same way.
    if (const auto config = statistics::betting_config_from_json(node->evidence["rule_config"]))
      return config->s0;
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
  auto opened =
      open_paired_device(target_, kernel_, head_artifact, candidate_artifact,
                         run_seeded(static_cast<uint64_t>(candidate.id), options_.run_seed));
  if (!opened) fail_with(opened.error());
  statistics::PairedDevice& device = *opened.value();
  AcceptanceResult result;
  // The warm-up that estimates s0 runs once per head: later tests against it start from the
  // same prior, which their pairs update as before.
  const std::optional<double> known_s0 =
      statistics::takes_s0(options_.rule) ? s0_of_last_test_against(tree_, head.id) : std::nullopt;
  trees::DecisionLog log(tree_);
  auto begun = log.begin_test(candidate.id, std::string(statistics::to_string(options_.rule)));
  const int64_t test = value_or_fail(std::move(begun), "begin test");
  LogSink sink(log, test, head.id, candidate.id);
  Rng coin(mix_seed(run_seeded(static_cast<uint64_t>(test), options_.run_seed),
                    statistics::kCoinStream));
  const std::string name(kernel_.name());
  const statistics::PairLabel label{name, std::to_string(candidate.id), test, 0};
  PairedVerdict verdict;
  try {
    auto ran = run_paired_test(device, options_, known_s0, coin, label, sink, progress_);
    if (!ran) {
      (void)log.abandon_test(test);
      fail_with(ran.error());
    }
    verdict = std::move(ran.value());
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
  result.warmup_readings = verdict.warmup_readings;
  trees::TestDecision decision;
  decision.outcome = verdict.record.outcome;
  decision.pairs = static_cast<int64_t>(verdict.record.d.size());
  decision.effect_pct = verdict.effect_pct;
  decision.ci_low = verdict.ci_low_pct;
  decision.ci_high = verdict.ci_high_pct;
  decision.note = verdict.note;
  decision.rule_config = statistics::rule_config_json(verdict.settings);
  result.seconds = elapsed();
  add_device_seconds(tree_.workspace(), name, result.seconds, "other", device.accounting());
  decision.device_seconds = total_device_seconds(tree_.workspace());
  value_or_fail(log.finish_test(test, decision), "finish test");
  result.outcome = verdict.record.outcome;
  result.test_id = test;
  result.pairs = static_cast<int>(verdict.record.d.size());
  result.effect_pct = decision.effect_pct;
  return result;
}

}  // namespace headway::loop
