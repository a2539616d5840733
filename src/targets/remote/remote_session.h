#pragma once
// A race's session over device jobs (remote_device.h): jobs of `rounds_per_job` rounds over every
// arm still in, one on each device at once, all on one device model; each job verifies its arms
// before it ends, and an arm found breaking a rule is out with its breach.
#include <memory>
#include <nlohmann/json.hpp>

#include "targets/remote/remote_device.h"

namespace headway::remote {

// `request` is a "readings" request without its rounds (device_job.h); `device` outlives it.
std::unique_ptr<targets::Session> make_remote_session(RemoteDevice& device, nlohmann::json request,
                                                      int arms);

}  // namespace headway::remote
