#include "loop/device_time.h"

#include <fmt/format.h>

#include <algorithm>

namespace headway::loop {

namespace {

double meta_seconds(store::Workspace& ws, const std::string& key) {
  const auto v = ws.meta(key);
  return v ? std::stod(*v) : 0.0;
}

void add_meta_seconds(store::Workspace& ws, const std::string& key, double seconds) {
  ws.set_meta(key, fmt::format("{:.6f}", meta_seconds(ws, key) + seconds));
}

std::string activity_key(const std::string& kernel, const std::string& activity) {
  return "device_seconds." + kernel + "." + activity;
}

}  // namespace

void add_device_seconds(store::Workspace& ws, const std::string& kernel, double seconds,
                        const std::string& activity, const nlohmann::json& accounting) {
  if (!accounting.is_object()) {
    add_meta_seconds(ws, "device_seconds." + kernel, seconds);
    add_meta_seconds(ws, activity_key(kernel, activity), seconds);
    return;
  }
  double covered = 0.0;
  for (const char* a : kDeviceActivities) {
    const double v = accounting.value(std::string(a) + "_seconds", 0.0);
    if (v <= 0.0) continue;
    add_meta_seconds(ws, activity_key(kernel, a), v);
    covered += v;
  }
  add_meta_seconds(ws, "device_seconds." + kernel, std::max(seconds, covered));
  if (seconds > covered) add_meta_seconds(ws, activity_key(kernel, "other"), seconds - covered);
}

double device_seconds(store::Workspace& ws, const std::string& kernel) {
  return meta_seconds(ws, "device_seconds." + kernel);
}

double total_device_seconds(store::Workspace& ws) {
  store::Statement s = ws.db().prepare(
      "SELECT COALESCE(SUM(CAST(m.value AS REAL)), 0) FROM kernels k "
      "JOIN meta m ON m.key = 'device_seconds.' || k.name");
  return s.step() ? s.real(0) : 0.0;
}

std::map<std::string, double> device_seconds_split(store::Workspace& ws,
                                                   const std::string& kernel) {
  std::map<std::string, double> out;
  for (const char* a : kDeviceActivities) {
    if (const auto v = ws.meta(activity_key(kernel, a))) out[a] = std::stod(*v);
  }
  return out;
}

}  // namespace headway::loop
