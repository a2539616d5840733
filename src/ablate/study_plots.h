#pragma once
// A study's plots, as gnuplot script bodies (report/tools.h's Gnuplot renders them to SVG):
// per arm, the median run's ratio to the floor against device time; per arm, the false accepts
// and false rejects of a run against the sim's truth.
#include <optional>
#include <string>
#include <vector>

#include "ablate/study.h"
#include "ablate/study_summary.h"

namespace headway::ablate {

// A run's ratio to the floor (the geometric mean over its kernels of head over floor) against
// the device time it had spent, from its result's kernel curves (optimize --json "curve"):
// the ratio at each of `at` (device seconds); after the run's last change its heads stand.
// nullopt when a kernel has no curve or floor.
std::optional<std::vector<double>> ratio_over_device_time(const nlohmann::json& result,
                                                          const std::vector<double>& at);

// Each arm's median, over its runs, of ratio_over_device_time, as step lines on a log scale up
// to the longest run's device time. nullopt when no run has curves.
std::optional<std::string> ratio_curve_plot(const Study& study);

// Bars per arm: false accepts and false rejects per run (the mean over its runs). nullopt when
// no arm has them (a target without truth).
std::optional<std::string> truth_errors_plot(const std::vector<ArmSummary>& arms,
                                             const Study& study);

}  // namespace headway::ablate
