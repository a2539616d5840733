#pragma once
// How `headway bench` (plain and --step) shows a kernel's readings: their median with its 95%
// interval and whether they are bimodal (common/median_interval.h).
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

namespace headway::cli {

// median_ms, median_interval_ms [low, high], interval_coverage, bimodal, modes_ms (null unless
// bimodal) and readings_ms.
nlohmann::json readings_json(const std::vector<double>& ms);
// "[LOW, HIGH]" in milliseconds.
std::string interval_text(const std::vector<double>& ms);
// "bimodal: LOW | HIGH ms (N | M)", or empty when the readings are not bimodal.
std::string bimodal_text(const std::vector<double>& ms);

}  // namespace headway::cli
