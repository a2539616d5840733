#pragma once
// headway-cuda-runner info and facts: the device's attributes, and its facts from
// microbenchmarks (copy and read bandwidth, L2 copy bandwidth, launch overhead).
#include <nlohmann/json.hpp>

#include "targets/cuda/runner/gpu.h"
#include "targets/cuda/runner/options.h"

namespace headway::cuda_runner {

// The device's attributes as `info` prints them.
nlohmann::json device_json(const DeviceInfo& d);
// Measures the facts (o.readings readings each) and prints {"device", "facts"}; returns 0.
int run_facts(Gpu& gpu, const Options& o);

}  // namespace headway::cuda_runner
