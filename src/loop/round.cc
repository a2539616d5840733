#include "loop/round.h"

#include <fmt/format.h>

#include <cmath>
#include <nlohmann/json.hpp>
#include <stdexcept>

#include "common/result.h"
#include "loop/acceptance.h"
#include "loop/build_ahead.h"
#include "loop/device_time.h"
#include "loop/kernel_registration.h"
#include "loop/proposals.h"
#include "loop/race.h"
#include "loop/screen_calibration.h"

namespace headway::loop {

namespace {

using trees::Node;
using trees::NodeStatus;

}  // namespace

targets::BuildOutcome SerialBuilds::build(const std::string& source) {
  std::lock_guard lock(mutex);
  return target.build(source, cache);
}

targets::Artifact SerialBuilds::artifact_of(const std::string& kernel, const std::string& source) {
  const auto built = build(source);
  if (!built.built()) {
    fail_with(environment_error(fmt::format("{}: a source that built before no longer builds: {}",
                                            kernel, built.diagnostics)));
  }
  return built.artifact;
}

Round::Round(store::Workspace& ws, SerialBuilds& builds, trees::DesignTree& tree,
             const OptimizeOptions& options, RoundEvents& events)
    : ws_(ws),
      builds_(builds),
      tree_(tree),
      options_(options),
      events_(events),
      kernel_(kernel_or_fail(options.catalog, tree.kernel())) {}

RoundCounts Round::run(const std::vector<Node>& pending) {
  const Node head = *tree_.node(tree_.head().node_id);
  bool stopped = false;
  auto survivors = screen(pending, &stopped);
  if (stopped || survivors.empty()) return counts_;
  // The static cost, where the target has one: predicted effects, and the screen by them.
  std::optional<targets::Artifact> head_artifact;
  if (builds_.target.static_cost(survivors.front().artifact)) {
    head_artifact = builds_.artifact_of(tree_.kernel(), tree_.source(head.id).value_or(""));
    survivors = screen_by_static_cost(*head_artifact, std::move(survivors));
    if (survivors.empty()) return counts_;
  }
  // The device times from here to the end of the round.
  std::set<int64_t> deciding;
  for (const auto& s : survivors) deciding.insert(s.node.id);
  events_.timing_starts(deciding);
  if (!options_.racing) {
    test_each(head.id, survivors);
    return counts_;
  }
  const auto winner =
      survivors.size() > 1 ? race(head, survivors, head_artifact) : std::optional<size_t>(0);
  if (winner) test(head, survivors[*winner]);
  return counts_;
}

// Without racing: every survivor takes an acceptance test against the head of the moment, until
// the run asks the round to stop. A prediction against a head that has since changed is dropped.
void Round::test_each(int64_t predicted_against, std::vector<Survivor>& survivors) {
  for (auto& s : survivors) {
    if (events_.should_stop()) return;
    const Node head = *tree_.node(tree_.head().node_id);
    if (head.id != predicted_against) s.predicted_pct.reset();
    test(head, s);
  }
}

std::vector<Round::Survivor> Round::screen(const std::vector<Node>& pending, bool* stopped) {
  // Each source is linted once, before any is built: a rejected one is never built.
  const LintHook lint = options_.rule_lint ? options_.lint : LintHook();
  std::vector<std::string> sources;
  std::vector<std::optional<std::string>> rejected;
  std::vector<bool> wanted;
  for (const auto& n : pending) {
    sources.push_back(tree_.source(n.id).value_or(""));
    rejected.push_back(lint ? lint(sources.back()) : std::nullopt);
    wanted.push_back(!rejected.back());
  }
  // Only the build waits for the other builds; the check runs on the device meanwhile, and the
  // next candidate builds beside it.
  BuildAhead builds(sources, wanted, [this](const std::string& src) { return builds_.build(src); });
  std::vector<Survivor> survivors;
  for (size_t i = 0; i < pending.size(); ++i) {
    const Node& n = pending[i];
    if (events_.should_stop()) {
      *stopped = true;
      return survivors;
    }
    events_.progress(n, "screen");
    const ScreenResult s = screen_candidate(
        kernel_, sources[i], builds_.target, builds_.cache,
        [&rejected, i](const std::string&) { return rejected[i]; },
        [&builds, i](const std::string&) { return builds.get(i); });
    add_device_seconds(ws_, tree_.kernel(), s.seconds, "screen");
    if (s.passed) {
      survivors.push_back({n, s.artifact, std::nullopt});
      continue;
    }
    value_or_fail(tree_.set_status(n.id, s.status, s.reason, s.evidence), "record screen");
    if (options_.on_screen_failure) options_.on_screen_failure(tree_.kernel(), n.id);
  }
  return survivors;
}

// Predicts each survivor's effect from its static cost against the head's; while the screen
// calibration trusts the static cost, a survivor predicted slower than the head by more than
// static_cost_reject_pct is not raced.
std::vector<Round::Survivor> Round::screen_by_static_cost(const targets::Artifact& head,
                                                          std::vector<Survivor> survivors) {
  const auto head_cost = builds_.target.static_cost(head);
  if (!head_cost || *head_cost <= 0) return survivors;
  const bool trusted = options_.static_cost_screen &&
                       static_cost_trusted(summarize_screen_calibration(ws_, tree_.kernel()));
  std::vector<Survivor> kept;
  for (auto& s : survivors) {
    const auto cost = builds_.target.static_cost(s.artifact);
    if (cost) s.predicted_pct = 100.0 * (1.0 - *cost / *head_cost);
    if (!trusted || !s.predicted_pct || *s.predicted_pct >= -options_.static_cost_reject_pct) {
      kept.push_back(std::move(s));
      continue;
    }
    value_or_fail(
        tree_.set_status(s.node.id, NodeStatus::kRacedOut,
                         fmt::format("screened out by static cost: {:g} against the head's {:g} "
                                     "predicts {:.1f}% slower",
                                     *cost, *head_cost, -*s.predicted_pct),
                         {{"static_cost", *cost},
                          {"head_static_cost", *head_cost},
                          {"predicted_pct", *s.predicted_pct}}),
        "record static-cost screen");
    ++counts_.cost_rejected;
    events_.progress(s.node, "static cost: not raced");
  }
  return kept;
}

// Races the survivors: the losers are raced out, those that broke a rule disqualified, and where
// the head ran too the race's calibration points are kept. A loser tied with the winner for the
// first time stays proposed, to be raced again after the kernel's other candidates
// (proposals.h: kTiedInRace); tied a second time, it is raced out. Returns the winner, or nullopt
// when every survivor broke a rule.
std::optional<size_t> Round::race(const Node& head, const std::vector<Survivor>& survivors,
                                  const std::optional<targets::Artifact>& head_artifact) {
  events_.progress(survivors[0].node, fmt::format("race of {}", survivors.size()));
  std::vector<RaceEntrant> entrants;
  for (const auto& s : survivors) entrants.push_back({s.node.id, s.artifact});
  std::optional<RaceEntrant> head_entrant;
  if (head_artifact) head_entrant = RaceEntrant{head.id, *head_artifact};
  Race race(builds_.target, kernel_, tree_,
            {options_.race_initial_readings, options_.race_budget, run_seeded(1, options_.seed)});
  const RaceResult r = value_or_fail(race.run(entrants, head_entrant));
  for (size_t i = 0; i < survivors.size(); ++i) {
    if (r.cheated[i]) disqualify(survivors[i].node, *r.cheated[i]);
    if (!r.head_median || !survivors[i].predicted_pct || r.cheated[i] ||
        !std::isfinite(r.medians[i]) || r.medians[i] <= 0)
      continue;
    record_screen_calibration(
        ws_, {tree_.kernel(), survivors[i].node.id, head.id, builds_.target.identity().id,
              *survivors[i].predicted_pct, 100.0 * (1.0 - r.medians[i] / *r.head_median), "race"});
  }
  const auto winner = r.winner();
  if (!winner) return std::nullopt;
  const auto w = static_cast<size_t>(*winner);
  for (size_t i = 0; i < survivors.size(); ++i) {
    if (i == w || r.cheated[i]) continue;
    const double ms = r.medians[i] * 1e3;
    nlohmann::json evidence = {
        {"race_median_ms", ms}, {"winner_median_ms", r.medians[w] * 1e3}, {"race_id", r.race_id}};
    std::string reason =
        fmt::format("lost the race: median {:.3f} ms vs winner {:.3f} ms", ms, r.medians[w] * 1e3);
    if (r.one_core_medians[i] && r.one_core_medians[w]) {
      evidence["one_core_median_ms"] = *r.one_core_medians[i] * 1e3;
      reason = fmt::format(
          "tied in the race (median {:.3f} ms vs winner {:.3f} ms), slower on one core: {:.3f} "
          "ms vs {:.3f} ms",
          ms, r.medians[w] * 1e3, *r.one_core_medians[i] * 1e3, *r.one_core_medians[w] * 1e3);
      if (!tied_in_race(survivors[i].node)) {
        evidence[kTiedInRace] = r.race_id;
        value_or_fail(
            tree_.note_proposed(survivors[i].node.id,
                                reason + "; raced again after the other candidates", evidence),
            "record race");
        events_.progress(survivors[i].node, "tied: raced again later");
        continue;
      }
      reason +=
          fmt::format(", tied in race {} before", survivors[i].node.evidence[kTiedInRace].dump());
    }
    value_or_fail(tree_.set_status(survivors[i].node.id, NodeStatus::kRacedOut, reason, evidence),
                  "record race");
  }
  return w;
}

void Round::test(const Node& head, const Survivor& candidate) {
  events_.progress(candidate.node, "acceptance test");
  const auto head_artifact =
      builds_.artifact_of(tree_.kernel(), tree_.source(head.id).value_or(""));
  AcceptanceOptions acceptance = options_.acceptance;
  acceptance.run_seed = options_.seed;
  AcceptanceTest test(builds_.target, kernel_, tree_, acceptance);
  test.on_progress([&](const std::string& stage) { events_.progress(candidate.node, stage); });
  const AcceptanceResult r = test.run(head, head_artifact, candidate.node, candidate.artifact);
  if (!r.head_disqualified.empty()) {
    // A head that got past its own test wrong: it is cheated, and the head before it is back.
    // The candidate was not judged and stays as it was.
    const auto back = tree_.revoke_head(r.head_disqualified, {{"reason", r.head_disqualified}});
    if (!back) {
      throw KernelStopped(fmt::format("its head failed under timing: {} ({})", r.head_disqualified,
                                      back.error().message));
    }
    ++counts_.cheated;
    events_.progress(head, fmt::format("cheated as head: {}; head back to #{}", r.head_disqualified,
                                       back->node_id));
    return;
  }
  if (!r.outcome) {
    disqualify(candidate.node, r.disqualified);
    return;
  }
  if (candidate.predicted_pct && r.effect_pct) {
    record_screen_calibration(
        ws_, {tree_.kernel(), candidate.node.id, head.id, builds_.target.identity().id,
              *candidate.predicted_pct, *r.effect_pct, "test"});
  }
  ++counts_.tests;
  if (*r.outcome == statistics::Outcome::kFaster) ++counts_.accepted;
  events_.progress(candidate.node, std::string(statistics::to_string(*r.outcome)));
}

// Marks a candidate that broke a rule of timing; it is never a head nor a parent.
void Round::disqualify(const Node& node, const std::string& reason) {
  value_or_fail(tree_.set_status(node.id, NodeStatus::kCheated, reason, {{"reason", reason}}),
                "record cheat");
  ++counts_.cheated;
  events_.progress(node, "cheated: " + reason);
}

}  // namespace headway::loop
