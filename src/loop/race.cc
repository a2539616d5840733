#include "loop/race.h"

#include <fmt/format.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstddef>
#include <limits>
#include <stdexcept>

#include "loop/device_time.h"
#include "statistics/racing.h"
#include "targets/one_core_ties.h"
#include "trees/race_log.h"

namespace headway::loop {

namespace {

using Clock = std::chrono::steady_clock;

int64_t now_ns() {
  return std::chrono::duration_cast<std::chrono::nanoseconds>(Clock::now().time_since_epoch())
      .count();
}

}  // namespace

std::optional<int> RaceResult::winner() const {
  if (ranking.empty() || cheated[static_cast<size_t>(ranking.front())]) return std::nullopt;
  return ranking.front();
}

Result<RaceResult> Race::run(const std::vector<RaceEntrant>& entrants,
                             const std::optional<RaceEntrant>& head) {
  const auto start = Clock::now();
  std::vector<targets::Artifact> artifacts;
  std::vector<int64_t> nodes;
  for (const auto& e : entrants) {
    artifacts.push_back(e.artifact);
    nodes.push_back(e.node_id);
  }
  if (head) {
    artifacts.push_back(head->artifact);
    nodes.push_back(head->node_id);
  }
  auto session = target_.start_session(kernel_, artifacts, options_.seed);
  if (!session)
    return Error{session.error().code, "cannot start the race: " + session.error().message};

  statistics::RaceConfig config;
  config.initial_readings = options_.initial_readings;
  config.budget = std::max<int64_t>(
      options_.budget, static_cast<int64_t>(entrants.size()) * options_.initial_readings);
  trees::RaceLog log(tree_);
  RaceResult result;
  result.race_id = value_or_fail(log.begin_race(config.budget), "begin race");
  result.cheated.resize(entrants.size());
  int index = 0;
  // One reading of arm i, stored as it is taken; failed readings are not times.
  auto read = [&](int i) -> Result<double> {
    const int64_t started = now_ns();
    auto r = session.value()->reading(i);
    if (r) {
      value_or_fail(log.record_reading(result.race_id, {nodes[static_cast<size_t>(i)], index++, i,
                                                        started, r.value()}),
                    "record race reading");
    }
    return r;
  };
  auto raced = statistics::race(static_cast<int>(entrants.size()), config, [&](int i) {
    auto& why = result.cheated[static_cast<size_t>(i)];
    if (why) return std::numeric_limits<double>::infinity();
    const auto r = read(i);
    if (r) return r.value();
    why = r.error().message;
    return std::numeric_limits<double>::infinity();
  });
  if (!raced) return raced.error();
  if (head) {
    std::vector<double> head_readings;
    const int head_arm = static_cast<int>(entrants.size());
    for (int i = 0; i < options_.initial_readings; ++i) {
      const auto r = read(head_arm);
      if (!r) break;  // the head failed in the race: no calibration from it
      head_readings.push_back(r.value());
    }
    if (head_readings.size() == static_cast<size_t>(options_.initial_readings)) {
      std::sort(head_readings.begin(), head_readings.end());
      result.head_median = head_readings[head_readings.size() / 2];
    }
  }
  // Only the winner goes on, to an acceptance test that compares every paired call: the arms are
  // checked in the race's order until one is found right, each one found wrong cheated on the
  // way; the losers behind a right leader are not checked (no decision reads their readings).
  for (const int i : raced.value().ranking) {
    if (result.cheated[static_cast<size_t>(i)] ||
        !std::isfinite(raced.value().medians[static_cast<size_t>(i)]))
      continue;
    const auto breach = session.value()->verify_arm(i);
    if (!breach) break;
    if (breach->arm < static_cast<int>(entrants.size()))
      result.cheated[static_cast<size_t>(breach->arm)] = breach->reason;
    if (breach->arm != i) break;  // a session that checks every arm at once has said all it can
  }
  // The race's readings are done: its session goes, so that the one-core timing below takes
  // over its input sets (targets may keep them for the next session) rather than draw its own.
  const double race_seconds = std::chrono::duration<double>(Clock::now() - start).count();
  const nlohmann::json race_accounting = session.value()->accounting();
  session.value().reset();
  result.ranking = raced.value().ranking;
  result.medians = raced.value().medians;
  for (size_t i = 0; i < entrants.size(); ++i) {
    if (result.cheated[i] || !std::isfinite(result.medians[i]))
      result.medians[i] = std::numeric_limits<double>::infinity();
  }
  // The ranking as stored: fastest first, entrants that broke a rule last.
  std::stable_partition(result.ranking.begin(), result.ranking.end(),
                        [&](int i) { return !result.cheated[static_cast<size_t>(i)]; });
  result.one_core_medians.resize(entrants.size());
  // A target that cannot time on one core (one that does not time on this machine's cores)
  // refuses it there: the race's order stands.
  std::optional<targets::OneCoreTies> ties;
  if (options_.one_core_tie_pct > 0) ties = break_tie_on_one_core(entrants, &result);
  std::vector<int64_t> ranked_nodes;
  for (const int i : result.ranking) ranked_nodes.push_back(nodes[static_cast<size_t>(i)]);
  value_or_fail(log.finish_race(result.race_id, index, ranked_nodes), "finish race");
  result.seconds = std::chrono::duration<double>(Clock::now() - start).count();
  // The one-core readings are a session of their own, accounted as it says.
  const double tie_seconds = ties ? result.seconds - race_seconds : 0.0;
  add_device_seconds(tree_.workspace(), tree_.kernel(), result.seconds - tie_seconds, "other",
                     race_accounting);
  if (ties) {
    add_device_seconds(tree_.workspace(), tree_.kernel(), tie_seconds, "other", ties->accounting);
  }
  return result;
}

std::optional<targets::OneCoreTies> Race::break_tie_on_one_core(
    const std::vector<RaceEntrant>& entrants, RaceResult* result) {
  std::vector<targets::Artifact> artifacts;
  for (const auto& e : entrants) artifacts.push_back(e.artifact);
  // result->medians are infinite for the entrants that broke a rule: never tied.
  const auto ties = targets::time_ties_on_one_core(target_, kernel_, artifacts, result->ranking,
                                                   result->medians, options_.one_core_tie_pct,
                                                   options_.one_core_readings, options_.seed + 1);
  if (!ties) return ties;
  for (size_t k = 0; k < ties->tied.size(); ++k)
    result->one_core_medians[static_cast<size_t>(ties->tied[k])] = ties->seconds[k];
  std::stable_sort(result->ranking.begin(),
                   result->ranking.begin() + static_cast<std::ptrdiff_t>(ties->tied.size()),
                   [&](int a, int b) {
                     return *result->one_core_medians[static_cast<size_t>(a)] <
                            *result->one_core_medians[static_cast<size_t>(b)];
                   });
  return ties;
}

}  // namespace headway::loop
