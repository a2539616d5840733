#pragma once
// The report as Markdown for an issue or a pull request: the summary table, agents, knowledge
// and calibration, and per kernel the accepted changes with the test that accepted each.
// Plots and trees are left to the HTML report.
#include <string>

#include "report/report_model.h"

namespace headway::report {

std::string render_markdown(const Report& report);

}  // namespace headway::report
