#pragma once
// How `headway bench` (plain, --step and --peers) shows the chip facts its floors come from
// (targets/floor_facts.h).
#include <nlohmann/json.hpp>
#include <string>

#include "targets/target.h"

namespace headway::cli {

// A fact as bench --json gives it: name, value, unit, spread_pct (null without one), method.
nlohmann::json fact_json(const targets::ChipFact& fact);
// A fact as bench prints it: "NAME: VALUE UNIT", then " (cv X%)" where it has a spread.
std::string fact_line(const targets::ChipFact& fact);

}  // namespace headway::cli
