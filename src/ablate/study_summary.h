#pragma once
// What a study's stored runs say (ablate/study.h): per arm and figure, the median over its runs
// with a distribution-free interval, and the difference from the full loop's.
//
// Figures per run, from optimize's result (docs/CLI.md, optimize --json):
//   ratio_to_floor           the geometric mean over the kernels of the head's time over its floor
//                            (lower is better)
//   speedup                  the geometric mean of the kernels' baseline over head
//   tests, accepted          the acceptance tests ended and accepted
//   device_seconds           the device time the run spent
//   device_seconds_to_1_25x, device_seconds_to_1_10x
//                            the device time until every kernel was within that ratio of its
//                            floor; +infinity for a run that never got there
//   false_accepts, false_rejects
//                            the tests judged wrong against the truth (sim; loop/truth_audit.h)
//   agent_calls, agent_cost_usd
//                            the agent's use (runs with an agent)
// A figure a run cannot give (a kernel without a timed head, a target without truth) leaves that
// run out of that figure.
#include <map>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

#include "ablate/study.h"
#include "common/median_interval.h"

namespace headway::ablate {

inline constexpr const char* kFigures[] = {"ratio_to_floor",
                                           "speedup",
                                           "tests",
                                           "accepted",
                                           "device_seconds",
                                           "device_seconds_to_1_25x",
                                           "device_seconds_to_1_10x",
                                           "false_accepts",
                                           "false_rejects",
                                           "agent_calls",
                                           "agent_cost_usd"};

// The figures of one run's result (the keys of kFigures it can give).
std::map<std::string, double> run_figures(const nlohmann::json& result);

struct FigureSummary {
  int runs = 0;
  int never = 0;  // runs whose figure is +infinity (never within the ratio)
  double median = 0;
  MedianInterval interval;  // 95% where the runs allow (coverage says)
  // Against the full loop's runs of the same figure, where the study has that arm and this is
  // another: this arm's median minus the full loop's, and an interval that holds the difference
  // of the true medians whenever both arms' 97.5% intervals hold theirs (coverage at least
  // the sum of theirs minus 1, at least 95% with enough runs). None where a median is infinite.
  std::optional<double> difference;
  double difference_low = 0, difference_high = 0, difference_coverage = 0;
};

struct ArmSummary {
  std::string arm;
  int runs_done = 0;
  std::map<std::string, FigureSummary> figures;  // by figure name, those with a run
};

// Every arm of the study, in its order, from the runs stored now.
std::vector<ArmSummary> summarize(const Study& study);

nlohmann::json to_json(const std::vector<ArmSummary>& arms);
// A table per figure, `markdown` or plain text.
std::string render(const Study& study, const std::vector<ArmSummary>& arms, bool markdown);

}  // namespace headway::ablate
