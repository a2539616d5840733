#pragma once
// The report as one self-contained HTML file: no external reference (no script, style, font or
// image from elsewhere), so it opens offline from disk. Plots (gnuplot) and Design Trees
// (Graphviz) are inlined as SVG; a node of a tree links to its details (source, diff against
// its parent, build and check record, readings). A small inline script opens the details a
// link points at, and records whether it ran and which errors the page raised in the element
// #script-status (data-plots, data-drawn, data-trees, data-errors) and #script-errors, for a
// browser test to read.
#include <map>
#include <string>

#include "report/report_model.h"

namespace headway::report {

struct Figures {
  std::map<std::string, std::string> plots;  // SVG by plot name (plots.h)
  std::map<std::string, std::string> trees;  // SVG of each kernel's Design Tree, by kernel
};

// Renders every plot and tree of the report. Throws ToolMissing (tools.h) without gnuplot or
// dot, ToolFailed when either fails.
Figures render_figures(const Report& report);

// The HTML document. A plot or tree absent from `figures` is left out with a note.
std::string render_html(const Report& report, const Figures& figures);

// text with &, <, >, " and ' escaped for HTML.
std::string html_escape(const std::string& text);

}  // namespace headway::report
