#include "ablate/study_html.h"

#include <fmt/format.h>

#include "ablate/study_plots.h"
#include "report/html_report.h"
#include "report/tools.h"

namespace headway::ablate {

std::string study_html(const Study& study, const std::vector<ArmSummary>& arms) {
  report::Gnuplot gnuplot;
  if (auto p = ratio_curve_plot(study)) gnuplot.add("curve", *p, 820, 380);
  if (auto p = truth_errors_plot(arms, study)) gnuplot.add("errors", *p, 820, 320);
  const auto svgs = gnuplot.size() ? gnuplot.render() : std::map<std::string, std::string>();
  std::string figures;
  for (const char* name : {"curve", "errors"}) {
    if (const auto svg = svgs.find(name); svg != svgs.end())
      figures +=
          fmt::format("<figure>{}</figure>\n", report::scope_svg_ids(svg->second, name, true));
  }
  if (figures.empty()) figures = "<p>No run has a curve yet.</p>\n";
  const std::string title = "headway ablate: " + study.dir().filename().string();
  return fmt::format(
      "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n<title>{0}</title>\n"
      "<style>body{{font-family:sans-serif;max-width:60em;margin:2em auto;}}"
      "pre{{background:#f6f8fa;padding:1em;overflow-x:auto;}}figure{{margin:1em 0;}}</style>\n"
      "</head>\n<body>\n<h1>{0}</h1>\n{1}<h2>Summary</h2>\n<pre>{2}</pre>\n</body>\n</html>\n",
      report::html_escape(title), figures, report::html_escape(render(study, arms, false)));
}

}  // namespace headway::ablate
