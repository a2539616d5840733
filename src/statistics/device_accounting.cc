#include "statistics/device_accounting.h"

#include <array>
#include <string>

namespace headway::statistics {

namespace {

// Figures of one call or one reading: averaged over the devices, not summed.
constexpr std::array<const char*, 1> kPerCallKeys = {"round_trip_seconds"};

void set_ratio(nlohmann::json& j, const char* key, double numerator, double denominator) {
  j[key] = denominator > 0.0 ? numerator / denominator : 0.0;
}

// Adds `from` into `into` key by key; `conflicted` collects string keys the devices disagree on.
void add_into(nlohmann::json& into, const nlohmann::json& from, nlohmann::json& conflicted) {
  for (const auto& [key, value] : from.items()) {
    if (value.is_number()) {
      into[key] = into.value(key, 0.0) + value.get<double>();
    } else if (value.is_object()) {
      if (!into.contains(key) || !into[key].is_object()) into[key] = nlohmann::json::object();
      nlohmann::json inner = nlohmann::json::object();
      add_into(into[key], value, inner);
      for (const auto& [k, v] : inner.items()) into[key].erase(k);
    } else if (value.is_string()) {
      if (!into.contains(key)) {
        into[key] = value;
      } else if (into[key] != value) {
        conflicted[key] = true;
      }
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
  nlohmann::json sum = nlohmann::json::object(), conflicted = nlohmann::json::object();
  std::array<int, kPerCallKeys.size()> measured{};
  bool any = false;
  for (const nlohmann::json& a : accountings) {
    if (!a.is_object()) continue;
    any = true;
    add_into(sum, a, conflicted);
    for (size_t k = 0; k < kPerCallKeys.size(); ++k)
      measured[k] += a.contains(kPerCallKeys[k]) && a[kPerCallKeys[k]].is_number();
  }
  if (!any) return nullptr;
  for (const auto& [key, unused] : conflicted.items()) sum.erase(key);
  for (size_t k = 0; k < kPerCallKeys.size(); ++k)
    if (measured[k] > 0) sum[kPerCallKeys[k]] = sum.value(kPerCallKeys[k], 0.0) / measured[k];
  derive_shares(sum);
  return sum;
}

}  // namespace headway::statistics
