#include "statistics/device_accounting.h"

#include <string>

namespace headway::statistics {

namespace {

// A figure of one call, averaged over the devices that measured it, not summed.
constexpr const char* kPerCallKey = "round_trip_seconds";

void set_ratio(nlohmann::json& j, const char* key, double numerator, double denominator) {
  j[key] = denominator > 0.0 ? numerator / denominator : 0.0;
}

// Adds `from` into `into` key by key. A string the devices disagree on becomes null, and stays
// null whatever a later device says (drop_nulls removes it at the end).
void add_into(nlohmann::json& into, const nlohmann::json& from) {
  for (const auto& [key, value] : from.items()) {
    if (value.is_number()) {
      into[key] = into.value(key, 0.0) + value.get<double>();
    } else if (value.is_object()) {
      if (!into.contains(key) || !into[key].is_object()) into[key] = nlohmann::json::object();
      add_into(into[key], value);
    } else if (value.is_string()) {
      if (!into.contains(key)) {
        into[key] = value;
      } else if (into[key] != value) {
        into[key] = nullptr;
      }
    }
  }
}

void drop_nulls(nlohmann::json& j) {
  for (auto it = j.begin(); it != j.end();) {
    if (it->is_null()) {
      it = j.erase(it);
    } else {
      if (it->is_object()) drop_nulls(*it);
      ++it;
    }
  }
}

}  // namespace

void derive_shares(nlohmann::json& a) {
  if (!a.is_object()) return;
  if (a.contains("timed_seconds") && a.contains("reading_phase_seconds")) {
    const double timed = a.value("timed_seconds", 0.0);
    const double readings = a.value("reading_phase_seconds", 0.0);
    set_ratio(a, "timed_share_of_readings", timed, readings);
    set_ratio(a, "timed_share", timed, a.value("inputs_seconds", 0.0) + readings);
  }
  if (a.contains("input_bytes") && a.contains("input_huge_page_bytes"))
    set_ratio(a, "input_huge_page_share", a.value("input_huge_page_bytes", 0.0),
              a.value("input_bytes", 0.0));
}

nlohmann::json sum_accountings(const std::vector<nlohmann::json>& accountings) {
  nlohmann::json sum = nlohmann::json::object();
  int measured = 0;  // devices with a round trip
  bool any = false;
  for (const nlohmann::json& a : accountings) {
    if (!a.is_object()) continue;
    any = true;
    add_into(sum, a);
    measured += a.contains(kPerCallKey) && a[kPerCallKey].is_number();
  }
  if (!any) return nullptr;
  drop_nulls(sum);
  if (measured > 0) sum[kPerCallKey] = sum.value(kPerCallKey, 0.0) / measured;
  derive_shares(sum);
  return sum;
}

}  // namespace headway::statistics
