#pragma once
// What a study's stored runs say (ablate/study.h): per arm and figure, the median over its runs
// with a distribution-free interval, and the difference from the full loop's.
//
// Figures per run, from optimize's result: ratio_to_floor, the geometric mean over the kernels of
// the head's time over its floor (lower is better); speedup, the geometric mean of the kernels'
// baseline over head; tests and accepted, the acceptance tests ended and accepted. A figure a run
// cannot give (a kernel without a timed head) leaves that run out of that figure.
#include <map>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

#include "ablate/study.h"
#include "common/median_interval.h"

namespace headway::ablate {

inline constexpr const char* kFigures[] = {"ratio_to_floor", "speedup", "tests", "accepted"};

// The figures of one run's result (the keys of kFigures it can give).
std::map<std::string, double> run_figures(const nlohmann::json& result);

struct FigureSummary {
  int runs = 0;
  double median = 0;
  MedianInterval interval;  // 95% where the runs allow (coverage says)
  // Against the full loop's runs of the same figure, where the study has that arm and this is
  // another: this arm's median minus the full loop's, and an interval that holds the difference
  // of the true medians whenever both arms' 97.5% intervals hold theirs (coverage at least
  // the sum of theirs minus 1, at least 95% with enough runs).
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
