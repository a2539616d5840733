#include "cli/readings_view.h"

#include <fmt/format.h>

#include "common/median_interval.h"
#include "common/stats.h"
#include "targets/floors.h"

namespace headway::cli {

std::vector<double> to_ms(const std::vector<double>& seconds) {
  std::vector<double> ms;
  ms.reserve(seconds.size());
  for (const double s : seconds) ms.push_back(s * 1e3);
  return ms;
}

nlohmann::json readings_json(const std::vector<double>& ms) {
  const MedianInterval i = median_interval(ms);
  const Bimodality b = test_bimodality(ms);
  return {
      {"median_ms", median(ms)},
      {"median_interval_ms", {i.low, i.high}},
      {"interval_coverage", i.coverage},
      {"bimodal", b.bimodal},
      {"modes_ms", b.bimodal ? nlohmann::json{b.low_mode, b.high_mode} : nlohmann::json(nullptr)},
      {"readings_ms", ms}};
}

std::string interval_text(const std::vector<double>& ms) {
  const MedianInterval i = median_interval(ms);
  return fmt::format("[{:.3f}, {:.3f}]", i.low, i.high);
}

std::string bimodal_text(const std::vector<double>& ms) {
  const Bimodality b = test_bimodality(ms);
  return b.bimodal ? fmt::format("bimodal: {:.3f} | {:.3f} ms ({} | {})", b.low_mode, b.high_mode,
                                 b.low_count, b.high_count)
                   : "";
}

std::string reading_notes(const std::vector<double>& ms, double ratio_to_floor) {
  std::string notes;
  for (const std::string& note : {bimodal_text(ms), targets::below_floor_note(ratio_to_floor)}) {
    if (!note.empty()) notes += "  " + note;
  }
  return notes;
}

}  // namespace headway::cli
