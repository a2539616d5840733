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
// What a row of readings adds after its figures, each part led by two spaces: bimodal_text, and
// targets::below_floor_note where the median sits below its floor; empty when neither applies.
std::string reading_notes(const std::vector<double>& ms, double ratio_to_floor);

}  // namespace headway::cli
