#include "targets/cuda/runner/driver_api.h"

#include <dlfcn.h>

#include <cstdlib>
#include <string>

namespace headway::cuda_runner {
namespace {

#define HW_STRINGIFY_EXPANDED(x) HW_STRINGIFY(x)
#define HW_STRINGIFY(x) #x

std::string dl_error() {
  const char* e = dlerror();
  return e ? e : "unknown dlopen error";
}

}  // namespace

std::string load_driver(DriverApi& api) {
  const char* override_path = std::getenv("HEADWAY_CUDA_DRIVER");
  const std::string path = override_path && *override_path ? override_path : "libcuda.so.1";
  void* lib = dlopen(path.c_str(), RTLD_NOW | RTLD_LOCAL);
  if (!lib) return dl_error() + " (no NVIDIA driver)";
    // The names come from cuda.h's macros (cuMemAlloc is cuMemAlloc_v2, ...).
#define HW_LOAD(name)                                                                       \
  api.name = reinterpret_cast<decltype(api.name)>(dlsym(lib, HW_STRINGIFY_EXPANDED(name))); \
  if (!api.name) return std::string("the driver has no ") + HW_STRINGIFY_EXPANDED(name);
  HW_DRIVER_FUNCTIONS(HW_LOAD)
#undef HW_LOAD
  if (CUresult r = api.cuInit(0); r != CUDA_SUCCESS) return "cuInit failed: " + describe(api, r);
  int count = 0;
  if (CUresult r = api.cuDeviceGetCount(&count); r != CUDA_SUCCESS)
    return "cuDeviceGetCount failed: " + describe(api, r);
  if (count < 1) return "the driver reports no CUDA device";
  return "";
}

void load_nvml(NvmlApi& nvml) {
  void* lib = dlopen("libnvidia-ml.so.1", RTLD_NOW | RTLD_LOCAL);
  if (!lib) return;
  nvml.init = reinterpret_cast<int (*)()>(dlsym(lib, "nvmlInit_v2"));
  nvml.device_by_index = reinterpret_cast<int (*)(unsigned int, NvmlApi::Device*)>(
      dlsym(lib, "nvmlDeviceGetHandleByIndex_v2"));
  nvml.clock = reinterpret_cast<int (*)(NvmlApi::Device, int, unsigned int*)>(
      dlsym(lib, "nvmlDeviceGetClockInfo"));
  nvml.max_clock = reinterpret_cast<int (*)(NvmlApi::Device, int, unsigned int*)>(
      dlsym(lib, "nvmlDeviceGetMaxClockInfo"));
  void* reasons = dlsym(lib, "nvmlDeviceGetCurrentClocksEventReasons");
  if (!reasons) reasons = dlsym(lib, "nvmlDeviceGetCurrentClocksThrottleReasons");
  nvml.reasons = reinterpret_cast<int (*)(NvmlApi::Device, unsigned long long*)>(reasons);
  if (!nvml.init || !nvml.device_by_index || !nvml.clock || !nvml.max_clock || !nvml.reasons)
    return;
  if (nvml.init() != 0) return;
  NvmlApi::Device device = nullptr;
  if (nvml.device_by_index(0, &device) == 0) nvml.device = device;
}

std::string describe(const DriverApi& api, CUresult result) {
  const char* text = nullptr;
  if (api.cuGetErrorString) api.cuGetErrorString(result, &text);
  return "CUDA error " + std::to_string(static_cast<int>(result)) +
         (text ? std::string(": ") + text : "");
}

}  // namespace headway::cuda_runner
