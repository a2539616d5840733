#pragma once
// Targets by name. "cpu", "sim" and "command" are built in; others (a test's fake, a plugged-in
// target) register themselves. Thread-safe.
//
// Register from code that surely runs (main(), a verb's setup, a test) rather than from a static
// initializer: headway_core is a static library, and an object file that nothing references is
// left out of the link together with its initializers.
#include <functional>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "common/result.h"
#include "statistics/calibration.h"
#include "targets/target.h"

namespace headway::targets {

// Makes a target with the toolchain `spec` selected (empty: the target's default). Never null.
using TargetMaker = std::function<std::unique_ptr<Target>(const std::string& toolchain_spec)>;

// Adds or replaces `name`'s maker (a built-in name too).
void register_target(std::string name, TargetMaker maker);

// A new target of that name with `toolchain_spec` selected, or nullptr for an unknown name.
std::unique_ptr<Target> make_target(std::string_view name, const std::string& toolchain_spec = "");

// Every name make_target knows, sorted ("cpu" and "sim" always among them).
std::vector<std::string> target_names();

// "a, b, c": target_names() for messages.
std::string target_names_text();

// Calibrates on the request's target: its calibration devices and, when it knows its noise, its
// s0 (statistics::calibrate). An error for an unknown target ("target 'x' is not available in this
// build (available: cpu, sim)").
Result<statistics::CalibrateResult> calibrate_on_target(
    const statistics::CalibrateRequest& request);
// The same on a target the caller made (its toolchain selected, its device pool given).
Result<statistics::CalibrateResult> calibrate_on_target(const statistics::CalibrateRequest& request,
                                                        Target& target);

}  // namespace headway::targets
