#pragma once
// The device time the loop spends per kernel, kept in the workspace's meta table so that status
// and the report can show it and a resumed run adds to it: the total under
// "device_seconds.<kernel>" and its split by activity under "device_seconds.<kernel>.<activity>".
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

}  // namespace headway::loop
