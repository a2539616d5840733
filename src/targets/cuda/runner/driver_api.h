#pragma once
// The CUDA driver API and NVML, loaded at run time (dlopen), so that headway-cuda-runner builds
// and starts on a machine without an NVIDIA driver and says so in one line instead of failing to
// load. Types and entry-point names come from cuda.h; NVML's few calls are declared here.
#include <cuda.h>

#include <string>

namespace headway::cuda_runner {

struct DriverApi {
  // One entry point a line.
  // clang-format off
#define HW_DRIVER_FUNCTIONS(X) \
  X(cuInit) \
  X(cuGetErrorString) \
  X(cuDeviceGetCount) \
  X(cuDeviceGet) \
  X(cuDeviceGetName) \
  X(cuDeviceGetAttribute) \
  X(cuDeviceTotalMem) \
  X(cuDevicePrimaryCtxRetain) \
  X(cuDevicePrimaryCtxRelease) \
  X(cuCtxSetCurrent) \
  X(cuCtxSynchronize) \
  X(cuModuleLoadData) \
  X(cuModuleGetFunction) \
  X(cuModuleGetGlobal) \
  X(cuFuncGetAttribute) \
  X(cuFuncSetAttribute) \
  X(cuMemAlloc) \
  X(cuMemFree) \
  X(cuMemcpyHtoD) \
  X(cuMemcpyDtoH) \
  X(cuMemcpyDtoDAsync) \
  X(cuMemsetD8Async) \
  X(cuMemsetD32Async) \
  X(cuStreamCreate) \
  X(cuStreamSynchronize) \
  X(cuEventCreate) \
  X(cuEventRecord) \
  X(cuEventSynchronize) \
  X(cuEventElapsedTime) \
  X(cuLaunchKernel) \
  X(cuDriverGetVersion)
  // clang-format on
#define HW_DECLARE(name) decltype(&::name) name = nullptr;
  HW_DRIVER_FUNCTIONS(HW_DECLARE)
#undef HW_DECLARE
};

// NVML (libnvidia-ml.so.1), for the SM clock and throttling of each reading. Optional: a driver
// without it gives readings without a clock.
struct NvmlApi {
  using Device = struct NvmlDevice*;
  int (*init)() = nullptr;                                          // nvmlInit_v2
  int (*device_by_index)(unsigned int, Device*) = nullptr;          // nvmlDeviceGetHandleByIndex_v2
  int (*clock)(Device, int type, unsigned int* mhz) = nullptr;      // nvmlDeviceGetClockInfo
  int (*max_clock)(Device, int type, unsigned int* mhz) = nullptr;  // nvmlDeviceGetMaxClockInfo
  int (*reasons)(Device, unsigned long long*) = nullptr;  // nvmlDeviceGetCurrentClocksEventReasons
  Device device = nullptr;
  bool ok() const { return device != nullptr; }
};
inline constexpr int kNvmlClockSm = 1;
// Clock event reasons that mean the SM clock was held down: software power cap, hardware
// slowdown, software and hardware thermal slowdown, power brake.
inline constexpr unsigned long long kThrottleReasons = 0x4 | 0x8 | 0x20 | 0x40 | 0x80;

// Loads the driver: $HEADWAY_CUDA_DRIVER when set (a test's stand-in), else libcuda.so.1. Empty
// on success, else one line saying why no GPU can be used ("libcuda.so.1: cannot open shared
// object file ...", "cuInit failed: ...", "no CUDA device").
std::string load_driver(DriverApi& api);
// Loads NVML for device 0; leaves `nvml` without a device when it cannot.
void load_nvml(NvmlApi& nvml);
// "CUDA_ERROR_...: text" for a driver result.
std::string describe(const DriverApi& api, CUresult result);

}  // namespace headway::cuda_runner
