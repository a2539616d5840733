// A stand-in for the CUDA driver (libcuda.so.1), for tests and the cuda target's emulated
// toolchain (targets/cuda/emulation.h) on machines without a GPU: the runner loads it through
// $HEADWAY_CUDA_DRIVER. "Device" memory is host memory, a module is a
// host shared object (its bytes written to a file and dlopened) whose hw_plan is a host variable,
// and events read the host's steady clock. A module's kernels are either host functions
// `void name(void** params)` called once per launch, or real kernel files built with
// cuda_emulation.h, whose launcher (headway_emulated_launch) runs the grid on host threads. The
// runner's own PTX kernels (runner/own_kernels.h) are done here on the host. Only the calls
// headway-cuda-runner makes are here.
// With $HEADWAY_FAKE_CUDA_LOG set, each memset, launch and event record appends a line to that
// file ("memset BYTES", "read BYTES" for the runner's read stream, "launch" for a module's
// kernel, "event"), so that a test can see what the runner queues around a timed call.
// $HEADWAY_EMULATED_TIME_SCALE stretches launches (time_scale below).
#include <cuda.h>
#include <dlfcn.h>
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <map>
#include <string>
#include <thread>

#include "headway/headway_cuda.h"

namespace {

struct FakeEvent {
  std::chrono::steady_clock::time_point at;
};

using HostKernel = void (*)(void** params);
using EmulatedLauncher = void (*)(void* fn, unsigned grid, unsigned block, void** params);
// The launcher of each function's module, for functions of emulated modules.
std::map<void*, EmulatedLauncher>& launchers() {
  static std::map<void*, EmulatedLauncher> map;
  return map;
}

CUdeviceptr address_of(const void* p) {
  return static_cast<CUdeviceptr>(reinterpret_cast<uintptr_t>(p));
}
void* pointer(CUdeviceptr p) { return reinterpret_cast<void*>(static_cast<uintptr_t>(p)); }

void log_op(const char* what, size_t bytes) {
  static FILE* log = [] {
    const char* path = std::getenv("HEADWAY_FAKE_CUDA_LOG");
    return path ? std::fopen(path, "a") : nullptr;
  }();
  if (!log) return;
  std::fprintf(log, "%s %zu\n", what, bytes);
  std::fflush(log);
}

// $HEADWAY_EMULATED_TIME_SCALE (a number, default 1): a module's launch lasts that many times its
// run on the host, sleeping the rest, as a device slower than its host would. Ratios between
// kernels keep; device work then dominates without taking the host's cores.
double time_scale() {
  static const double scale = [] {
    const char* text = std::getenv("HEADWAY_EMULATED_TIME_SCALE");
    const double v = text ? std::strtod(text, nullptr) : 1.0;
    return v >= 1.0 && v <= 1e6 ? v : 1.0;
  }();
  return scale;
}

// The runner's own kernels, which a PTX module holds: their function handles.
int empty_kernel;
int read_stream_kernel;

// hw_read_stream(buffer, words, magic): XOR of every 16-byte word, stored into the buffer's
// first word only when it equals magic (as the PTX does).
void read_stream(void** params) {
  const CUdeviceptr buffer = *static_cast<CUdeviceptr*>(params[0]);
  const unsigned long long words = *static_cast<unsigned long long*>(params[1]);
  const unsigned magic = *static_cast<unsigned*>(params[2]);
  const auto* u32 = static_cast<const unsigned*>(pointer(buffer));
  unsigned x = 0;
  for (unsigned long long i = 0; i < 4 * words; ++i) x ^= u32[i];
  if (x == magic) *static_cast<unsigned*>(pointer(buffer)) = x;
  log_op("read", static_cast<size_t>(16 * words));
}

}  // namespace

extern "C" {

CUresult cuInit(unsigned int) { return CUDA_SUCCESS; }
CUresult cuGetErrorString(CUresult error, const char** text) {
  *text =
      error == CUDA_ERROR_LAUNCH_FAILED ? "unspecified launch failure (fake)" : "fake driver error";
  return CUDA_SUCCESS;
}
CUresult cuDriverGetVersion(int* version) {
  *version = 13000;
  return CUDA_SUCCESS;
}
CUresult cuDeviceGetCount(int* count) {
  *count = 1;
  return CUDA_SUCCESS;
}
CUresult cuDeviceGet(CUdevice* device, int ordinal) {
  *device = ordinal;
  return ordinal == 0 ? CUDA_SUCCESS : CUDA_ERROR_INVALID_DEVICE;
}
CUresult cuDeviceGetName(char* name, int length, CUdevice) {
  std::strncpy(name, "headway fake GPU", static_cast<size_t>(length));
  return CUDA_SUCCESS;
}
CUresult cuDeviceGetAttribute(int* value, CUdevice_attribute attribute, CUdevice) {
  switch (attribute) {
    case CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR:
      *value = 9;
      break;
    case CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR:
      *value = 0;
      break;
    case CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT:
      *value = 4;
      break;
    case CU_DEVICE_ATTRIBUTE_L2_CACHE_SIZE:
      *value = 1 << 20;
      break;
    case CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_BLOCK_OPTIN:
      *value = 227 * 1024;
      break;
    case CU_DEVICE_ATTRIBUTE_CLOCK_RATE:
      *value = 1980000;
      break;
    case CU_DEVICE_ATTRIBUTE_MEMORY_CLOCK_RATE:
      *value = 2619000;
      break;
    case CU_DEVICE_ATTRIBUTE_GLOBAL_MEMORY_BUS_WIDTH:
      *value = 6144;
      break;
    default:
      *value = 0;
  }
  return CUDA_SUCCESS;
}
CUresult cuDeviceTotalMem_v2(size_t* bytes, CUdevice) {
  *bytes = 8ull << 30;
  return CUDA_SUCCESS;
}
CUresult cuDevicePrimaryCtxRetain(CUcontext* context, CUdevice) {
  static int token;
  *context = reinterpret_cast<CUcontext>(&token);
  return CUDA_SUCCESS;
}
CUresult cuDevicePrimaryCtxRelease_v2(CUdevice) { return CUDA_SUCCESS; }
CUresult cuCtxSetCurrent(CUcontext) { return CUDA_SUCCESS; }
CUresult cuCtxSynchronize() { return CUDA_SUCCESS; }
CUresult cuStreamCreate(CUstream* stream, unsigned int) {
  static int token;
  *stream = reinterpret_cast<CUstream>(&token);
  return CUDA_SUCCESS;
}
CUresult cuStreamSynchronize(CUstream) { return CUDA_SUCCESS; }

CUresult cuMemAlloc_v2(CUdeviceptr* p, size_t bytes) {
  void* memory = std::aligned_alloc(256, (bytes + 255) / 256 * 256);
  if (!memory) return CUDA_ERROR_OUT_OF_MEMORY;
  *p = address_of(memory);
  return CUDA_SUCCESS;
}
CUresult cuMemFree_v2(CUdeviceptr p) {
  std::free(pointer(p));
  return CUDA_SUCCESS;
}
CUresult cuMemcpyHtoD_v2(CUdeviceptr to, const void* from, size_t bytes) {
  std::memcpy(pointer(to), from, bytes);
  return CUDA_SUCCESS;
}
CUresult cuMemcpyDtoH_v2(void* to, CUdeviceptr from, size_t bytes) {
  std::memcpy(to, pointer(from), bytes);
  return CUDA_SUCCESS;
}
CUresult cuMemcpyDtoDAsync_v2(CUdeviceptr to, CUdeviceptr from, size_t bytes, CUstream) {
  std::memmove(pointer(to), pointer(from), bytes);
  return CUDA_SUCCESS;
}
CUresult cuMemsetD8Async(CUdeviceptr p, unsigned char value, size_t count, CUstream) {
  log_op("memset", count);
  std::memset(pointer(p), value, count);
  return CUDA_SUCCESS;
}
CUresult cuMemsetD32Async(CUdeviceptr p, unsigned int value, size_t count, CUstream) {
  log_op("memset", 4 * count);
  auto* words = static_cast<unsigned int*>(pointer(p));
  for (size_t i = 0; i < count; ++i) words[i] = value;
  return CUDA_SUCCESS;
}

CUresult cuModuleLoadData(CUmodule* module, const void* image) {
  // PTX text (the runner's own kernels) loads as the null module, whose functions are done here.
  if (std::strncmp(static_cast<const char*>(image), ".version", 8) == 0) {
    *module = nullptr;
    return CUDA_SUCCESS;
  }
  // The image is an ELF shared object; its size is in its section header table's end.
  const auto* bytes = static_cast<const unsigned char*>(image);
  if (std::memcmp(bytes,
                  "\x7f"
                  "ELF",
                  4) != 0)
    return CUDA_ERROR_INVALID_IMAGE;
  uint64_t shoff = 0;
  uint16_t shentsize = 0, shnum = 0;
  std::memcpy(&shoff, bytes + 0x28, 8);
  std::memcpy(&shentsize, bytes + 0x3a, 2);
  std::memcpy(&shnum, bytes + 0x3c, 2);
  const size_t size = shoff + static_cast<size_t>(shentsize) * shnum;
  char path[] = "/tmp/fake-cuda-module-XXXXXX";
  const int fd = mkstemp(path);
  if (fd < 0) return CUDA_ERROR_OPERATING_SYSTEM;
  const bool written = write(fd, bytes, size) == static_cast<ssize_t>(size);
  close(fd);
  void* handle = written ? dlopen(path, RTLD_NOW | RTLD_LOCAL) : nullptr;
  unlink(path);
  if (!handle) return CUDA_ERROR_INVALID_IMAGE;
  *module = reinterpret_cast<CUmodule>(handle);
  return CUDA_SUCCESS;
}
CUresult cuModuleGetFunction(CUfunction* f, CUmodule module, const char* name) {
  if (!module) {
    if (std::strcmp(name, "hw_empty") == 0) {
      *f = reinterpret_cast<CUfunction>(&empty_kernel);
    } else if (std::strcmp(name, "hw_read_stream") == 0) {
      *f = reinterpret_cast<CUfunction>(&read_stream_kernel);
    } else {
      return CUDA_ERROR_NOT_FOUND;
    }
    return CUDA_SUCCESS;
  }
  void* symbol = dlsym(module, name);
  if (!symbol) return CUDA_ERROR_NOT_FOUND;
  if (void* launcher = dlsym(module, "headway_emulated_launch"))
    launchers()[symbol] = reinterpret_cast<EmulatedLauncher>(launcher);
  *f = reinterpret_cast<CUfunction>(symbol);
  return CUDA_SUCCESS;
}
CUresult cuModuleGetGlobal_v2(CUdeviceptr* p, size_t* bytes, CUmodule module, const char* name) {
  void* symbol = module ? dlsym(module, name) : nullptr;
  if (!symbol) return CUDA_ERROR_NOT_FOUND;
  *p = address_of(symbol);
  *bytes = sizeof(hw_cuda_plan);
  return CUDA_SUCCESS;
}
CUresult cuFuncGetAttribute(int* value, CUfunction_attribute, CUfunction) {
  *value = 1024;
  return CUDA_SUCCESS;
}
CUresult cuFuncSetAttribute(CUfunction, CUfunction_attribute, int) { return CUDA_SUCCESS; }
CUresult cuLaunchKernel(CUfunction f, unsigned int grid, unsigned int, unsigned int,
                        unsigned int block, unsigned int, unsigned int, unsigned int, CUstream,
                        void** params, void**) {
  void* fn = reinterpret_cast<void*>(f);
  if (fn == &empty_kernel) return CUDA_SUCCESS;
  if (fn == &read_stream_kernel) {
    read_stream(params);
    return CUDA_SUCCESS;
  }
  log_op("launch", 0);
  const auto start = std::chrono::steady_clock::now();
  if (auto it = launchers().find(fn); it != launchers().end())
    it->second(fn, grid, block, params);
  else
    reinterpret_cast<HostKernel>(f)(params);
  if (const double scale = time_scale(); scale > 1.0)
    std::this_thread::sleep_for((std::chrono::steady_clock::now() - start) * (scale - 1.0));
  return CUDA_SUCCESS;
}

CUresult cuEventCreate(CUevent* event, unsigned int) {
  *event = reinterpret_cast<CUevent>(new FakeEvent);
  return CUDA_SUCCESS;
}
CUresult cuEventRecord(CUevent event, CUstream) {
  log_op("event", 0);
  reinterpret_cast<FakeEvent*>(event)->at = std::chrono::steady_clock::now();
  return CUDA_SUCCESS;
}
CUresult cuEventSynchronize(CUevent) { return CUDA_SUCCESS; }
CUresult cuEventElapsedTime_v2(float* ms, CUevent start, CUevent end) {
  *ms = std::chrono::duration<float, std::milli>(reinterpret_cast<FakeEvent*>(end)->at -
                                                 reinterpret_cast<FakeEvent*>(start)->at)
            .count();
  return CUDA_SUCCESS;
}

}  // extern "C"
