#pragma once
// The runner's hold on device 0: its primary context and one stream, device memory, loaded
// candidate modules and launches of their plans. Every driver failure throws DriverFailure with
// the call and the driver's message; after a failed launch the context is unusable.
#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <optional>
#include <span>
#include <stdexcept>
#include <string>
#include <vector>

#include "common/result.h"
#include "targets/cuda/launch_plan.h"
#include "targets/cuda/runner/driver_api.h"

namespace headway::cuda_runner {

class DriverFailure : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

struct DeviceInfo {
  std::string name;
  int major = 0, minor = 0;
  int sm_count = 0;
  int l2_bytes = 0;
  int max_shared_optin = 0;  // dynamic shared memory a block may opt into
  int sm_clock_khz = 0;      // the attribute's clock (the maximum)
  int memory_clock_khz = 0;
  int bus_width_bits = 0;
  size_t memory_bytes = 0;
  int driver_version = 0;
};

class Gpu;

// Device memory, freed with its owner.
class DeviceBuffer {
 public:
  DeviceBuffer() = default;
  DeviceBuffer(Gpu& gpu, size_t bytes);
  DeviceBuffer(DeviceBuffer&& other) noexcept;
  DeviceBuffer& operator=(DeviceBuffer&& other) noexcept;
  DeviceBuffer(const DeviceBuffer&) = delete;
  DeviceBuffer& operator=(const DeviceBuffer&) = delete;
  ~DeviceBuffer();
  CUdeviceptr address() const { return address_; }
  size_t bytes() const { return bytes_; }

 private:
  Gpu* gpu_ = nullptr;
  CUdeviceptr address_ = 0;
  size_t bytes_ = 0;
};

struct Module {
  cuda::LaunchPlan plan;
  std::vector<CUfunction> functions;  // one per launch
};

class Gpu {
 public:
  // Empty when device 0 is ready, else one line saying why no GPU can be used.
  std::string open();
  const DriverApi& api() const { return api_; }
  const DeviceInfo& info() const { return info_; }
  CUstream stream() const { return stream_; }
  // Throws DriverFailure("<what>: <driver message>") unless r is CUDA_SUCCESS.
  void check(CUresult r, const char* what) const;

  // Loads a built module (a fatbin or cubin file) and its hw_plan; an error names what is wrong
  // with the candidate (no hw_plan, a bad plan, a launch naming a function it lacks).
  Result<Module> load(const std::filesystem::path& file);
  // Loads PTX or cubin bytes that headway wrote itself and returns `entry` of it.
  CUfunction load_own(const std::string& image, const char* entry);
  // Launches the plan's kernels in order on the stream, each with (args by value, scratch).
  void launch(const Module& module, std::vector<std::byte>& args, CUdeviceptr scratch);

  void upload(CUdeviceptr to, const void* from, size_t bytes);
  void download(void* to, CUdeviceptr from, size_t bytes);
  void synchronize();

  // The SM clock now (MHz) and whether it is held down; nullopt without NVML.
  struct Clock {
    unsigned mhz = 0;
    bool throttled = false;
  };
  std::optional<Clock> clock() const;

 private:
  DriverApi api_;
  NvmlApi nvml_;
  CUdevice device_ = 0;
  CUcontext context_ = nullptr;
  CUstream stream_ = nullptr;
  DeviceInfo info_;
};

// Times work on the stream with a pair of events.
class EventTimer {
 public:
  explicit EventTimer(Gpu& gpu);
  void start();
  // Records the end, waits for it and returns the seconds between the two events.
  double stop();

 private:
  Gpu& gpu_;
  CUevent start_ = nullptr, end_ = nullptr;
};

}  // namespace headway::cuda_runner
