#include "ablate/study_plots.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>

#include "common/stats.h"

namespace headway::ablate {

namespace {

constexpr int kCurvePoints = 80;
constexpr const char* kColors[] = {"#27ae60", "#c0392b", "#2980b9", "#8e44ad", "#d35400",
                                   "#16a085", "#7f8c8d", "#f39c12", "#2c3e50", "#e84393"};

// The head's time at `seconds` on a curve of [device_seconds, head_ms] steps.
double head_at(const nlohmann::json& curve, double seconds) {
  double ms = curve.front().at(1).get<double>();
  for (const auto& step : curve) {
    if (step.at(0).get<double>() > seconds) break;
    ms = step.at(1).get<double>();
  }
  return ms;
}

std::string arm_block(size_t i) { return fmt::format("arm{}", i); }

}  // namespace

std::optional<std::vector<double>> ratio_over_device_time(const nlohmann::json& result,
                                                          const std::vector<double>& at) {
  const auto kernels = result.value("kernels", nlohmann::json::array());
  if (!kernels.is_array() || kernels.empty()) return std::nullopt;
  for (const auto& k : kernels) {
    const auto curve = k.find("curve");
    const auto floor = k.find("floor_ms");
    if (curve == k.end() || !curve->is_array() || curve->empty() || floor == k.end() ||
        !floor->is_number() || !(floor->get<double>() > 0))
      return std::nullopt;
  }
  std::vector<double> out;
  for (const double seconds : at) {
    double log_sum = 0;
    for (const auto& k : kernels)
      log_sum += std::log(head_at(k["curve"], seconds) / k["floor_ms"].get<double>());
    out.push_back(std::exp(log_sum / static_cast<double>(kernels.size())));
  }
  return out;
}

std::optional<std::string> ratio_curve_plot(const Study& study) {
  double longest = 0;
  for (const auto& arm : study.spec().arms) {
    for (int run = 0; run < study.spec().runs; ++run) {
      if (const auto r = study.result(arm, run))
        longest = std::max(longest, r->value("device_seconds", 0.0));
    }
  }
  if (!(longest > 0)) return std::nullopt;
  std::vector<double> at;
  for (int i = 0; i <= kCurvePoints; ++i) at.push_back(longest * i / kCurvePoints);
  std::string blocks, series;
  double lo = INFINITY, hi = 0;
  for (size_t a = 0; a < study.spec().arms.size(); ++a) {
    const std::string& arm = study.spec().arms[a];
    std::vector<std::vector<double>> runs;
    for (int run = 0; run < study.spec().runs; ++run) {
      const auto r = study.result(arm, run);
      if (!r) continue;
      if (auto ratios = ratio_over_device_time(*r, at)) runs.push_back(std::move(*ratios));
    }
    if (runs.empty()) continue;
    std::string rows;
    for (size_t i = 0; i < at.size(); ++i) {
      std::vector<double> here;
      for (const auto& run : runs) here.push_back(run[i]);
      const double m = median(here);
      lo = std::min(lo, m);
      hi = std::max(hi, m);
      rows += fmt::format("{:.6g} {:.6g}\n", at[i], m);
    }
    blocks += fmt::format("${} << EOD\n{}EOD\n", arm_block(a), rows);
    series += fmt::format("{}${} using 1:2 with steps lw 2 lc rgb '{}' title '{} ({} runs)'",
                          series.empty() ? "plot " : ", \\\n  ", arm_block(a),
                          kColors[a % std::size(kColors)], arm, runs.size());
  }
  if (series.empty()) return std::nullopt;
  return blocks + fmt::format(
                      "set title \"ratio to the floor against device time (median run per "
                      "arm)\"\nset logscale y\nset format y '%g'\nset yrange [{:.6g}:{:.6g}]\n"
                      "set ytics (1, 1.1, 1.25, 1.5, 2, 3, 4, 6, 8, 12, 16, 32, 64)\n"
                      "set xrange [0:{:.6g}]\nset xlabel 'device seconds'\n"
                      "set ylabel 'head over floor, geomean (log scale)'\nset grid\n"
                      "set key outside right top font ',9'\n"
                      "set arrow from graph 0, first 1.25 to graph 1, first 1.25 nohead dt 2 lw 2\n"
                      "set arrow from graph 0, first 1.1 to graph 1, first 1.1 nohead dt 3 lw 2\n"
                      "{}\n",
                      std::max(1.0, lo / 1.1), hi * 1.1, longest, series);
}

std::optional<std::string> truth_errors_plot(const std::vector<ArmSummary>& arms,
                                             const Study& study) {
  std::string rows;
  int row = 0;
  for (const auto& a : arms) {
    double accepts = 0, rejects = 0;
    int runs = 0;
    for (int run = 0; run < study.spec().runs; ++run) {
      const auto r = study.result(a.arm, run);
      if (!r) continue;
      const auto figures = run_figures(*r);
      const auto fa = figures.find("false_accepts");
      const auto fr = figures.find("false_rejects");
      if (fa == figures.end() || fr == figures.end()) continue;
      accepts += fa->second;
      rejects += fr->second;
      ++runs;
    }
    if (runs == 0) continue;
    rows += fmt::format("{} \"{}\" {:.4g} {:.4g}\n", row++, a.arm, accepts / runs, rejects / runs);
  }
  if (rows.empty()) return std::nullopt;
  return fmt::format("$errors << EOD\n{}EOD\n", rows) +
         fmt::format(
             "set title \"acceptance tests judged wrong against the truth, per run (mean)\"\n"
             "set style fill solid 0.85 border -1\nset yrange [{:.1f}:-0.6]\n"
             "set xrange [0:*]\nset ytics font ',9'\nset xlabel 'tests per run'\n"
             "set grid xtics\nset key outside right top font ',9'\n"
             "plot $errors using (0):($1-0.2):(0):3:($1-0.38):($1-0.02):ytic(2) with "
             "boxxyerror lc rgb '#c0392b' title 'false accepts', \\\n"
             "  $errors using (0):($1+0.2):(0):4:($1+0.02):($1+0.38) with boxxyerror lc rgb "
             "'#7f8c8d' title 'false rejects (truly 1% faster or more)'\n",
             row - 0.4);
}

}  // namespace headway::ablate
