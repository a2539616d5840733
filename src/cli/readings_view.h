#pragma once
// How `headway bench` (plain, --step and --peers) shows a kernel's readings: their median with its
// 95% interval and whether they are bimodal (common/median_interval.h).
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

namespace headway::cli {

// Readings in seconds as milliseconds, in order.
std::vector<double> to_ms(const std::vector<double>& seconds);

// median_ms, median_interval_ms [low, high], interval_coverage, bimodal, modes_ms (null unless
// bimodal) and readings_ms.
nlohmann::json readings_json(const std::vector<double>& ms);
// "[LOW, HIGH]" in milliseconds.
std::string interval_text(const std::vector<double>& ms);
// "bimodal: LOW | HIGH ms (N | M)", or empty when the readings are not bimodal.
std::string bimodal_text(const std::vector<double>& ms);

}  // namespace headway::cli
