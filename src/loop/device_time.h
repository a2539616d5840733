#pragma once
// The device time the loop spends per kernel, kept in the workspace's meta table so that status
// and the report can show it and a resumed run adds to it: the total under
// "device_seconds.<kernel>" and its split by activity under "device_seconds.<kernel>.<activity>".
#include <cstdint>
#include <map>
#include <nlohmann/json.hpp>
#include <string>

#include "store/workspace.h"

namespace headway::loop {

// The activities device time is split into: "screen" (builds and checks), and for races and
// tests what their sessions account ("timed", "warm_up", "process_start", "guard",
// "verification", "inputs"), the rest of their wall time as "other".
inline constexpr const char* kDeviceActivities[] = {
    "screen", "timed", "warm_up", "process_start", "guard", "verification", "inputs", "other"};

// Adds `seconds` of wall time to the kernel's device time. `accounting` (a session's or paired
// device's, null when it has none) splits it by activity ("<activity>_seconds" members); what it
// does not cover counts as "other". Without accounting it all counts as `activity`. Where the
// accounting covers more than the wall time (a simulated device's time, which passes in no time),
// the kernel's device time grows by what it covers.
void add_device_seconds(store::Workspace& ws, const std::string& kernel, double seconds,
                        const std::string& activity, const nlohmann::json& accounting = nullptr);

// The device seconds spent on a kernel so far, from the workspace.
double device_seconds(store::Workspace& ws, const std::string& kernel);
// The device seconds spent on every registered kernel so far.
double total_device_seconds(store::Workspace& ws);
// The same seconds by activity; empty when none were recorded.
std::map<std::string, double> device_seconds_split(store::Workspace& ws, const std::string& kernel);

// How fast the workspace's device time turns into decisions, over every registered kernel.
struct DecisionRate {
  int64_t decisions = 0;         // acceptance tests with an outcome
  double device_seconds = 0.0;   // every activity
  double per_device_hour = 0.0;  // decisions / device hours (0 before any device time)
  // Timed calls' share of the device time outside the screen (builds and checks): how close
  // the races and tests come to costing only their timed calls. 0 before any such time.
  double timed_share = 0.0;
};
DecisionRate decision_rate(store::Workspace& ws);
// {"decisions", "device_seconds", "per_device_hour", "timed_share"}, and back (a JSON object of
// other members gives zeros).
nlohmann::json to_json(const DecisionRate& rate);
DecisionRate decision_rate_from_json(const nlohmann::json& j);
// "14 decisions in 512 device-seconds, 98.4 a device-hour; timed calls 52% of the device time
// outside the screen".
std::string describe(const DecisionRate& rate);

}  // namespace headway::loop
