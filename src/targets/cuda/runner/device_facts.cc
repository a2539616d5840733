#include "targets/cuda/runner/device_facts.h"

#include <algorithm>
#include <iostream>
#include <string>
#include <vector>

#include "common/stats.h"
#include "targets/cuda/runner/own_kernels.h"

namespace headway::cuda_runner {

using nlohmann::json;

json device_json(const DeviceInfo& d) {
  return {{"name", d.name},
          {"compute_capability", std::to_string(d.major) + "." + std::to_string(d.minor)},
          {"arch", "sm_" + std::to_string(d.major) + std::to_string(d.minor)},
          {"sm_count", d.sm_count},
          {"l2_bytes", d.l2_bytes},
          {"max_shared_per_block", d.max_shared_optin},
          {"sm_clock_mhz", d.sm_clock_khz / 1000},
          {"memory_clock_mhz", d.memory_clock_khz / 1000},
          {"bus_width_bits", d.bus_width_bits},
          {"memory_bytes", d.memory_bytes},
          {"driver_version", d.driver_version}};
}

namespace {

json fact(const std::string& name, const std::vector<double>& values, const std::string& unit,
          const std::string& method) {
  return {{"name", name},
          {"value", median(values)},
          {"unit", unit},
          {"spread", values.size() > 1 ? 100.0 * coefficient_of_variation(values) : 0.0},
          {"method", method}};
}

}  // namespace

int run_facts(Gpu& gpu, const Options& o) {
  const DeviceInfo& d = gpu.info();
  json facts = json::array();
  auto attribute = [&](const std::string& name, double value, const std::string& unit,
                       const std::string& what) {
    facts.push_back({{"name", name}, {"value", value}, {"unit", unit}, {"method", what}});
  };
  attribute("device.sm_count", d.sm_count, "SMs", "CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT");
  attribute("cache.l2", d.l2_bytes / 1024.0, "KiB", "CU_DEVICE_ATTRIBUTE_L2_CACHE_SIZE");
  attribute("device.sm_clock_max", d.sm_clock_khz / 1000.0, "MHz",
            "CU_DEVICE_ATTRIBUTE_CLOCK_RATE");
  attribute("device.memory", static_cast<double>(d.memory_bytes) / (1u << 30), "GiB",
            "cuDeviceTotalMem");

  EventTimer timer(gpu);
  // Copy bandwidth: device-to-device copies of 1 GiB (less on a small card), bytes read and
  // written both counted: the rate at which a kernel moves its bytes at best.
  const size_t big = std::min<size_t>(1u << 30, d.memory_bytes / 8 / 16 * 16);
  {
    DeviceBuffer a(gpu, big), b(gpu, big);
    std::vector<double> gbps;
    for (int r = -2; r < o.readings; ++r) {
      timer.start();
      gpu.check(gpu.api().cuMemcpyDtoDAsync(b.address(), a.address(), big, gpu.stream()), "copy");
      const double s = timer.stop();
      if (r >= 0) gbps.push_back(2.0 * static_cast<double>(big) / s / 1e9);
    }
    facts.push_back(fact("copy_bandwidth", gbps, "GB/s",
                         "cuMemcpyDtoDAsync of " + std::to_string(big >> 20) +
                             " MiB timed by CUDA events, bytes read plus written, median"));
    // Read bandwidth: the runner's read-only stream over the same buffer, bytes read counted.
    ReadStream read(gpu);
    gbps.clear();
    for (int r = -2; r < o.readings; ++r) {
      timer.start();
      read.launch(a.address(), big);
      const double s = timer.stop();
      if (r >= 0) gbps.push_back(static_cast<double>(big) / s / 1e9);
    }
    facts.push_back(fact("read_bandwidth", gbps, "GB/s",
                         "a read-only stream of " + std::to_string(big >> 20) +
                             " MiB (16-byte loads) timed by CUDA events, bytes read, median"));
  }
  // L2 bandwidth: the same copy over a quarter of the L2, 20 times between one pair of events.
  {
    const size_t small = std::max<size_t>(static_cast<size_t>(d.l2_bytes) / 4, 1u << 20);
    DeviceBuffer a(gpu, small), b(gpu, small);
    std::vector<double> gbps;
    for (int r = -2; r < o.readings; ++r) {
      timer.start();
      for (int k = 0; k < 20; ++k) {
        gpu.check(gpu.api().cuMemcpyDtoDAsync(b.address(), a.address(), small, gpu.stream()),
                  "copy");
      }
      const double s = timer.stop();
      if (r >= 0) gbps.push_back(40.0 * static_cast<double>(small) / s / 1e9);
    }
    facts.push_back(fact("l2_copy_bandwidth", gbps, "GB/s",
                         "20 device-to-device copies of a quarter of the L2, read plus written"));
  }
  // Launch overhead: back-to-back launches of an empty kernel on the device's timeline.
  {
    EmptyKernel empty(gpu);
    std::vector<double> us;
    for (int r = -2; r < o.readings; ++r) {
      timer.start();
      for (int k = 0; k < 1000; ++k) {
        empty.launch();
      }
      const double s = timer.stop();
      if (r >= 0) us.push_back(s / 1000.0 * 1e6);
    }
    facts.push_back(fact("launch_overhead", us, "us",
                         "1000 back-to-back launches of an empty kernel between two events"));
  }
  if (auto c = gpu.clock())
    attribute("device.sm_clock", c->mhz, "MHz", "NVML, after the benchmarks");
  std::cout << json{{"device", device_json(d)}, {"facts", facts}}.dump() << "\n";
  return 0;
}

}  // namespace headway::cuda_runner
