#pragma once
// A study as one HTML page (`headway ablate --html FILE`): its summary (the text tables) and its
// plots (ablate/study_plots.h), rendered by gnuplot to inline SVG.
#include <string>
#include <vector>

#include "ablate/study.h"
#include "ablate/study_summary.h"

namespace headway::ablate {

// Throws report::ToolMissing without gnuplot and report::ToolFailed when it fails.
std::string study_html(const Study& study, const std::vector<ArmSummary>& arms);

}  // namespace headway::ablate
