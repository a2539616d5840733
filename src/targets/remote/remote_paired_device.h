#pragma once
// The acceptance test's paired device over device jobs (remote_device.h): `pairs_per_job` pairs a
// job in the test's orders, one job on each device at once, all on one device model; each job
// verifies both arms before it ends; a confirmation runs jobs of the candidate's checked readings.
// Each reading's clock names its job, worker and model.
#include <memory>
#include <nlohmann/json.hpp>

#include "targets/remote/remote_device.h"

namespace headway::remote {

// `request` is a "pairs" request without its firsts (device_job.h); `device` outlives it.
// Readings of `slowed` are lengthened by `slowdown` (calibration's known effect; 0: none).
std::unique_ptr<statistics::PairedDevice> make_remote_paired_device(RemoteDevice& device,
                                                                    nlohmann::json request,
                                                                    statistics::Arm slowed,
                                                                    double slowdown);

}  // namespace headway::remote
