#include "loop/screen_calibration.h"

#include <map>
#include <vector>

#include "statistics/rank_correlation.h"

namespace headway::loop {

void record_screen_calibration(store::Workspace& ws, const ScreenCalibrationPoint& p) {
  auto s = ws.db().prepare(
      "INSERT INTO screen_calibration(kernel, node_id, head_id, toolchain, predicted_pct, "
      "measured_pct, source) "
      "VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7)");
  s.bind(1, p.kernel).bind(2, p.node_id).bind(3, p.head_id).bind(4, p.toolchain);
  s.bind(5, p.predicted_pct).bind(6, p.measured_pct).bind(7, p.source);
  s.run();
}

std::optional<double> ScreenCalibration::false_gain_rate() const {
  if (predicted_gains == 0) return std::nullopt;
  return static_cast<double>(false_gains) / predicted_gains;
}

ScreenCalibration summarize_screen_calibration(store::Workspace& ws, std::string_view kernel) {
  auto s = ws.db().prepare(
      "SELECT kernel, node_id, predicted_pct, measured_pct, source FROM screen_calibration "
      "WHERE ?1 = '' OR kernel = ?1 ORDER BY id");
  s.bind(1, kernel);
  struct Entry {
    double predicted = 0, measured = 0;
    bool tested = false;
  };
  std::map<std::pair<std::string, int64_t>, Entry> by_node;
  while (s.step()) {
    Entry& e = by_node[{s.text(0), s.int64(1)}];
    const bool test = s.text(4) == "test";
    if (e.tested && !test) continue;  // a test's figure beats a race's
    e.predicted = s.real(2);
    e.measured = s.real(3);
    e.tested = test;
  }
  ScreenCalibration out;
  std::vector<double> predicted, measured;
  for (const auto& [key, e] : by_node) {
    predicted.push_back(e.predicted);
    measured.push_back(e.measured);
    if (e.predicted > 0) {
      ++out.predicted_gains;
      if (e.measured <= 0) ++out.false_gains;
    }
  }
  out.candidates = static_cast<int>(by_node.size());
  out.spearman = statistics::spearman(predicted, measured);
  return out;
}

bool static_cost_trusted(const ScreenCalibration& summary) {
  if (summary.candidates < 5) return true;
  return summary.spearman && *summary.spearman >= 0.3;
}

}  // namespace headway::loop
