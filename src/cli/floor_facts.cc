#include "cli/floor_facts.h"

#include <fmt/format.h>

#include <algorithm>

#include "cli/json_null.h"
#include "common/stats.h"
#include "targets/floors.h"

namespace headway::cli {

nlohmann::json fact_json(const targets::ChipFact& fact) {
  return {{"name", fact.name},
          {"value", fact.value},
          {"unit", fact.unit},
          {"spread_pct", or_null(fact.spread)},
          {"method", fact.method}};
}

std::string fact_line(const targets::ChipFact& fact) {
  return fmt::format("{}: {:.4g} {}{}", fact.name, fact.value, fact.unit,
                     fact.spread ? fmt::format(" (cv {:.1f}%)", *fact.spread) : "");
}

void add_floor(const targets::BracketedFloor& floor, bool print, nlohmann::json* out,
               bool by_round) {
  (*out)["facts"] = nlohmann::json::array();
  for (const auto& f : floor.facts.measured) {
    (*out)["facts"].push_back(fact_json(f));
    if (print) fmt::print("{}\n", fact_line(f));
  }
  (*out)["floor"] = {{"around", floor.around},
                     {"held", floor.held},
                     {"moved_pct", 100 * floor.moved},
                     {"timings", floor.timings}};
  if (!print || !floor.around) return;
  const std::string movement = floor.movement();
  if (floor.held || by_round) {
    fmt::print(
        "floor facts: the faster of their measurements just before and just after the "
        "readings ({:.1f}% apart{})\n",
        100 * floor.moved, movement.empty() ? "" : "; " + movement);
  } else {
    fmt::print("floor facts: {}; the ratios to it are uncertain\n", movement);
  }
}

void add_round_floors(const std::vector<std::map<std::string, double>>& round_facts,
                      std::string_view when, std::string_view row, bool print,
                      nlohmann::json* out) {
  std::vector<double> bandwidth;
  for (const auto& facts : round_facts) {
    const auto it = facts.find(targets::kReadBandwidth);
    if (it == facts.end()) return;  // a target whose memory floor is another fact's
    bandwidth.push_back(it->second);
  }
  (*out)["round_read_bandwidth_gbps"] = bandwidth;
  if (!print || bandwidth.empty()) return;
  const auto [low, high] = std::minmax_element(bandwidth.begin(), bandwidth.end());
  fmt::print(
      "floors by round: read_bandwidth measured {} ({} readings a reader), median {:.2f} GB/s "
      "({:.2f} to {:.2f}); {}'s floor ms is the median of its rounds' floors, its x floor the "
      "median of its rounds' ratios\n",
      when, kRoundFloorReadings, median(bandwidth), *low, *high, row);
}

}  // namespace headway::cli
