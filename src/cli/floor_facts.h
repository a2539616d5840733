#pragma once
// How `headway bench` (plain, --step and --peers) shows the chip facts its floors come from
// (targets/floor_facts.h) and how they were measured around its readings
// (targets/floor_bracket.h).
#include <map>
#include <nlohmann/json.hpp>
#include <string>
#include <string_view>
#include <vector>

#include "targets/floor_bracket.h"
#include "targets/target.h"

namespace headway::cli {

// The readings a reader of the floor's bandwidth takes where bench measures the floor in every
// round (--peers, --step on a target that times on the host).
inline constexpr int kRoundFloorReadings = 3;

// A fact as bench --json gives it: name, value, unit, spread_pct (null without one), method.
nlohmann::json fact_json(const targets::ChipFact& fact);
// A fact as bench prints it: "NAME: VALUE UNIT", then " (cv X%)" where it has a spread.
std::string fact_line(const targets::ChipFact& fact);

// Sets (*out)["facts"] (fact_json of each) and (*out)["floor"]: {"around" (measured before and
// after the readings, else once before them), "held", "moved_pct", "timings"}. With `print`,
// prints fact_line of each, then one line on how the floor was measured where it was measured
// around the readings. With `by_round` the caller judges its readings by floors measured in every
// round, not by these: a floor that moved around the readings makes no ratio uncertain then.
void add_floor(const targets::BracketedFloor& floor, bool print, nlohmann::json* out,
               bool by_round = false);

// Where bench measures the floor in every round: sets (*out)["round_read_bandwidth_gbps"] from
// each round's facts (nothing where a round lacks read_bandwidth), and with `print` prints one line
// on them, "floors by round: read_bandwidth measured WHEN (N readings a reader), median X GB/s (LOW
// to HIGH); ROW's floor ms is the median of its rounds' floors, its x floor the median of its
// rounds' ratios".
void add_round_floors(const std::vector<std::map<std::string, double>>& round_facts,
                      std::string_view when, std::string_view row, bool print, nlohmann::json* out);

}  // namespace headway::cli
