#include "report/plots.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <vector>

namespace headway::report {

namespace {

// One figure per bar: its name, time and colour.
struct Bar {
  const char* name;
  double ms;
  const char* color;
};

std::string data_block(const std::string& name, const std::string& rows) {
  return fmt::format("${} << EOD\n{}EOD\n", name, rows);
}

// The x unit that keeps a span readable: seconds up to two minutes, minutes up to three hours.
std::pair<double, const char*> time_unit(double span_seconds) {
  if (span_seconds <= 120) return {1.0, "seconds since the kernel was registered"};
  if (span_seconds <= 3 * 3600) return {60.0, "minutes since the kernel was registered"};
  return {3600.0, "hours since the kernel was registered"};
}

}  // namespace

std::string bars_name(const std::string& kernel) { return "bars:" + kernel; }
std::string head_time_name(const std::string& kernel) { return "head:" + kernel; }
std::string wealth_name(const std::string& kernel, int64_t test) {
  return fmt::format("wealth:{}:{}", kernel, test);
}

std::optional<std::string> bars_plot(const KernelReport& k) {
  std::vector<Bar> bars;
  for (const Bar& b :
       {Bar{"baseline", k.baseline_ms, "0x7f8c8d"}, Bar{"head", k.head_ms, "0x27ae60"},
        Bar{"memory floor", k.floor_ms, "0x2980b9"},
        Bar{"decode ceiling", k.decode_ms, "0x8e44ad"}}) {
    if (std::isfinite(b.ms) && b.ms > 0) bars.push_back(b);
  }
  if (bars.empty()) return std::nullopt;
  double lo = std::numeric_limits<double>::infinity(), hi = 0;
  std::string rows, tics;
  for (size_t i = 0; i < bars.size(); ++i) {
    lo = std::min(lo, bars[i].ms);
    hi = std::max(hi, bars[i].ms);
    rows += fmt::format("{} {:.6g} {}\n", i, bars[i].ms, bars[i].color);
    tics += fmt::format("{}\"{}\" {}", i ? ", " : "", bars[i].name, i);
  }
  return data_block("bars", rows) +
         fmt::format(
             "set title \"{0}: time per call\"\n"
             "set logscale y\nset yrange [{1:.6g}:{2:.6g}]\nset format y '%g'\n"
             "set ylabel 'ms (log scale)'\nset xrange [-0.6:{3}.6]\nset xtics ({4})\n"
             "set grid ytics\nset style fill solid 0.85 border -1\nunset key\n"
             "plot $bars using 1:2:($1-0.35):($1+0.35):({1:.6g}):2:3 with boxxyerror lc rgb "
             "variable, \\\n  $bars using 1:2:(sprintf('%.3g ms', $2)) with labels offset 0,0.8\n",
             k.name, lo / 3, hi * 3, bars.size() - 1, tics);
}

std::optional<std::string> head_time_plot(const KernelReport& k) {
  struct Point {
    double t;
    double ms;
    int64_t node;
  };
  std::vector<Point> points;
  std::optional<double> start;
  for (size_t i = 0; i < k.heads.size(); ++i) {
    const auto& h = k.heads[i];
    const auto t = timestamp_seconds(h.since);
    if (!t) continue;
    if (!start) start = *t;
    const double ms = h.median_ms ? *h.median_ms : (i == 0 ? k.baseline_ms : NAN);
    if (std::isfinite(ms) && ms > 0) points.push_back({*t - *start, ms, h.node_id});
  }
  if (points.empty()) return std::nullopt;
  // The run goes on after the last change: until the newest node or test of the kernel.
  double end = points.back().t;
  for (const auto& n : k.nodes) {
    if (const auto t = timestamp_seconds(n.node.updated_at)) end = std::max(end, *t - *start);
  }
  for (const auto& t : k.tests) {
    if (t.record.finished_at) {
      if (const auto f = timestamp_seconds(*t.record.finished_at)) end = std::max(end, *f - *start);
    }
  }
  const auto [unit, label] = time_unit(end);
  std::string line, changes;
  for (const auto& p : points) line += fmt::format("{:.6g} {:.6g}\n", p.t / unit, p.ms);
  line += fmt::format("{:.6g} {:.6g}\n", end / unit, points.back().ms);
  for (size_t i = 1; i < points.size(); ++i) {
    changes +=
        fmt::format("{:.6g} {:.6g} \"#{}\"\n", points[i].t / unit, points[i].ms, points[i].node);
  }
  double lo = points.front().ms, hi = points.front().ms;
  for (const auto& p : points) {
    lo = std::min(lo, p.ms);
    hi = std::max(hi, p.ms);
  }
  if (std::isfinite(k.floor_ms) && k.floor_ms > 0) lo = std::min(lo, k.floor_ms);
  std::string plot = fmt::format(
      "set title \"{}: the head's time over the run\"\nset logscale y\nset format y '%g'\n"
      "set yrange [{:.6g}:{:.6g}]\nset xrange [0:{:.6g}]\n"
      "set ylabel 'ms (log scale)'\nset xlabel '{}'\nset grid\nset key top right\n",
      k.name, lo / 1.5, hi * 2.5, std::max(end / unit, 1.0), label);
  plot += data_block("head", line);
  std::string series = "plot $head using 1:2 with steps lw 2 lc rgb '#27ae60' title 'head'";
  if (!changes.empty()) {
    plot += data_block("changes", changes);
    series +=
        ", \\\n  $changes using 1:2 with points pt 7 ps 1.2 lc rgb '#c0392b' title 'accepted "
        "change', \\\n  $changes using 1:2:3 with labels offset 0,1 font ',9' notitle";
  }
  if (std::isfinite(k.floor_ms) && k.floor_ms > 0) {
    series += fmt::format(", \\\n  {:.6g} with lines dt 2 lc rgb '#2980b9' title 'memory floor'",
                          k.floor_ms);
  }
  return plot + series + "\n";
}

std::optional<std::string> wealth_plot(const TestReport& t) {
  if (t.wealth.empty() || !t.config) return std::nullopt;
  std::string rows;
  for (size_t i = 0; i < t.wealth.size(); ++i) {
    const auto& w = t.wealth[i];
    rows += fmt::format("{} {:.6g} {:.6g} {:.6g}\n", i + 1, w.faster, w.slower,
                        std::min(w.same_lower, w.same_upper));
  }
  return data_block("wealth", rows) +
         fmt::format(
             "set title \"test #{}: {} after {} pairs\"\nset logscale y\nset format y '%g'\n"
             "set xlabel 'pair'\nset ylabel 'wealth (log scale)'\nset xrange [0.5:{}.5]\n"
             "set grid\nset key outside right top font ',9'\n"
             "plot $wealth using 1:2 with linespoints pt 7 ps 0.6 lc rgb '#27ae60' title "
             "'FASTER', \\\n  $wealth using 1:3 with linespoints pt 7 ps 0.6 lc rgb '#c0392b' "
             "title 'SLOWER', \\\n  $wealth using 1:4 with linespoints pt 7 ps 0.6 lc rgb "
             "'#7f8c8d' title 'SAME', \\\n  {:.6g} with lines dt 2 lw 2 lc rgb '#000000' title "
             "'1/alpha', \\\n  {:.6g} with lines dt 3 lc rgb '#7f8c8d' title '1/alpha_e'\n",
             t.record.id,
             t.record.outcome ? std::string(statistics::to_string(*t.record.outcome))
                              : "unfinished",
             t.wealth.size(), t.wealth.size(), 1 / t.config->alpha, 1 / t.config->alpha_e);
}

void add_plots(const Report& report, Gnuplot& gnuplot) {
  for (const auto& k : report.kernels) {
    if (auto p = bars_plot(k)) gnuplot.add(bars_name(k.name), *p, 480, 260);
    if (auto p = head_time_plot(k)) gnuplot.add(head_time_name(k.name), *p, 560, 260);
    for (const auto& t : k.tests) {
      if (auto p = wealth_plot(t)) gnuplot.add(wealth_name(k.name, t.record.id), *p, 520, 220);
    }
  }
  for (const auto& pool : report.pools) {
    const int rows = static_cast<int>(pool.workers.size());
    if (auto p = pool_use_plot(pool)) gnuplot.add(pool_use_name(pool.id), *p, 640, 120 + 24 * rows);
  }
}

}  // namespace headway::report
