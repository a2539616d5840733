#pragma once
// The report's plots as gnuplot script bodies (tools.h's Gnuplot renders them to SVG): the data
// goes in as inline data blocks, so a script is the whole plot.
#include <optional>
#include <string>

#include "report/report_model.h"
#include "report/tools.h"

namespace headway::report {

// Baseline, head, memory floor and decode ceiling of a kernel as bars on a log scale, each
// labelled with its time; a figure that is unknown (NaN) gets no bar. nullopt when no figure is
// known.
std::optional<std::string> bars_plot(const KernelReport& kernel);

// The head's time over the run (minutes since the kernel was registered) as a step line, each
// accepted change a point labelled with its node, and the memory floor as a dashed line.
// nullopt when no head has a time.
std::optional<std::string> head_time_plot(const KernelReport& kernel);

// A test's wealth after each pair: FASTER and SLOWER against the 1/alpha line, SAME (the smaller
// of its two wealths) against 1/alpha_e, on a log scale. nullopt when the test has no wealth.
std::optional<std::string> wealth_plot(const TestReport& test);

// The names plots get in a Gnuplot batch: "bars:<kernel>", "head:<kernel>",
// "wealth:<kernel>:<test id>".
std::string bars_name(const std::string& kernel);
std::string head_time_name(const std::string& kernel);
std::string wealth_name(const std::string& kernel, int64_t test);

// Every plot of the report added to `gnuplot` under those names.
void add_plots(const Report& report, Gnuplot& gnuplot);

}  // namespace headway::report
