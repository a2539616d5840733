#pragma once
// Targets that can serve calibration decisions, by name, so that `headway calibrate` need not
// depend on any target. "sim" is built in; other targets register themselves. Thread-safe.
//
// Register from code that surely runs (for example from main() or a verb's setup) rather than
// from a static initializer: headway_core is a static library, and an object file that nothing
// references is left out of the link together with its initializers.
#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "measure/calibration.h"

namespace headway::measure {

// Builds the device factory for one request; may throw (std::exception) to report that the
// request cannot be served, e.g. an unknown kernel. The message reaches the user.
using DeviceFactoryMaker = std::function<DeviceFactory(const CalibrateRequest&)>;

// Adds or replaces `target`'s maker.
void register_device_factory(std::string target, DeviceFactoryMaker maker);

// The maker for `target`: a registered one, else the built-in one for "sim", else nullopt.
std::optional<DeviceFactoryMaker> lookup_device_factory(std::string_view target);

// Names with a maker, sorted ("sim" always among them).
std::vector<std::string> available_targets();

// The built-in "sim" maker: decision i gets SimDevice(request's noise, cv, effect_pct;
// seed mix_seed(request.seed, i)).
DeviceFactory sim_device_factory(const CalibrateRequest& request);

}  // namespace headway::measure
