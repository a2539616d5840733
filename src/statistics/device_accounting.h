#pragma once
// A paired device's accounting (PairedDevice::accounting): seconds and counts that add up across
// devices, and the shares and per-call figures that do not, derived from them here in one place.
//
//   timed_share              timed_seconds / (inputs_seconds + reading_phase_seconds)
//   timed_share_of_readings  timed_seconds / reading_phase_seconds
//   input_huge_page_share    input_huge_page_bytes / input_bytes
//   round_trip_seconds       the mean over the devices that measured one (a per-call figure)
//
// A share whose parts are absent is left as the device wrote it; a zero denominator gives 0.
#include <nlohmann/json.hpp>
#include <vector>

namespace headway::statistics {

// Sets the shares above from the parts present in `accounting` (an object; anything else is left
// alone).
void derive_shares(nlohmann::json& accounting);

// The devices' accountings as one: numbers summed key by key, objects summed the same way, a
// string kept where every device that has the key agrees on it, then the shares derived and the
// per-call figures averaged. Null entries are skipped; null when none is an object.
nlohmann::json sum_accountings(const std::vector<nlohmann::json>& accountings);

}  // namespace headway::statistics
