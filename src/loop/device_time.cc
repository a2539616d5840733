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

DecisionRate decision_rate(store::Workspace& ws) {
  DecisionRate rate;
  rate.decisions = ws.db().query_int64(
      "SELECT COUNT(*) FROM tests t JOIN kernels k ON k.name = t.kernel WHERE t.outcome IS NOT "
      "NULL");
  double timed = 0.0, screen = 0.0;
  store::Statement kernels = ws.db().prepare("SELECT name FROM kernels");
  while (kernels.step()) {
    const std::string name = kernels.text(0);
    rate.device_seconds += device_seconds(ws, name);
    const auto split = device_seconds_split(ws, name);
    if (const auto t = split.find("timed"); t != split.end()) timed += t->second;
    if (const auto s = split.find("screen"); s != split.end()) screen += s->second;
  }
  if (rate.device_seconds > 0)
    rate.per_device_hour = static_cast<double>(rate.decisions) * 3600.0 / rate.device_seconds;
  if (rate.device_seconds > screen) rate.timed_share = timed / (rate.device_seconds - screen);
  return rate;
}

nlohmann::json to_json(const DecisionRate& rate) {
  return {{"decisions", rate.decisions},
          {"device_seconds", rate.device_seconds},
          {"per_device_hour", rate.per_device_hour},
          {"timed_share", rate.timed_share}};
}

DecisionRate decision_rate_from_json(const nlohmann::json& j) {
  DecisionRate rate;
  if (!j.is_object()) return rate;
  rate.decisions = j.value("decisions", int64_t{0});
  rate.device_seconds = j.value("device_seconds", 0.0);
  rate.per_device_hour = j.value("per_device_hour", 0.0);
  rate.timed_share = j.value("timed_share", 0.0);
  return rate;
}

std::string describe(const DecisionRate& rate) {
  return fmt::format(
      "{} decisions in {:.0f} device-seconds, {:.1f} a device-hour; timed calls {:.0f}% of the "
      "device time outside the screen",
      rate.decisions, rate.device_seconds, rate.per_device_hour, 100 * rate.timed_share);
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
