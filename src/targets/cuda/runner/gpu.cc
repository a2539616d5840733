#include "targets/cuda/runner/gpu.h"

#include <fstream>
#include <iterator>
#include <optional>

namespace headway::cuda_runner {

DeviceBuffer::DeviceBuffer(Gpu& gpu, size_t bytes) : gpu_(&gpu), bytes_(bytes) {
  gpu.check(gpu.api().cuMemAlloc(&address_, bytes == 0 ? 256 : bytes), "cuMemAlloc");
}
DeviceBuffer::DeviceBuffer(DeviceBuffer&& other) noexcept
    : gpu_(other.gpu_), address_(other.address_), bytes_(other.bytes_) {
  other.address_ = 0;
}
DeviceBuffer& DeviceBuffer::operator=(DeviceBuffer&& other) noexcept {
  std::swap(gpu_, other.gpu_);
  std::swap(address_, other.address_);
  std::swap(bytes_, other.bytes_);
  return *this;
}
DeviceBuffer::~DeviceBuffer() {
  if (address_ != 0) gpu_->api().cuMemFree(address_);
}

std::string Gpu::open() {
  if (std::string why = load_driver(api_); !why.empty()) return why;
  try {
    check(api_.cuDeviceGet(&device_, 0), "cuDeviceGet");
    check(api_.cuDevicePrimaryCtxRetain(&context_, device_), "cuDevicePrimaryCtxRetain");
    check(api_.cuCtxSetCurrent(context_), "cuCtxSetCurrent");
    // A blocking stream: its work waits for the synchronous copies (made on the legacy default
    // stream), whose last bytes may still be in flight when the copy call returns.
    check(api_.cuStreamCreate(&stream_, CU_STREAM_DEFAULT), "cuStreamCreate");
    char name[256] = {};
    check(api_.cuDeviceGetName(name, sizeof name - 1, device_), "cuDeviceGetName");
    info_.name = name;
    auto attribute = [&](CUdevice_attribute a, int* out) {
      check(api_.cuDeviceGetAttribute(out, a, device_), "cuDeviceGetAttribute");
    };
    attribute(CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR, &info_.major);
    attribute(CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR, &info_.minor);
    attribute(CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT, &info_.sm_count);
    attribute(CU_DEVICE_ATTRIBUTE_L2_CACHE_SIZE, &info_.l2_bytes);
    attribute(CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_BLOCK_OPTIN, &info_.max_shared_optin);
    attribute(CU_DEVICE_ATTRIBUTE_CLOCK_RATE, &info_.sm_clock_khz);
    attribute(CU_DEVICE_ATTRIBUTE_MEMORY_CLOCK_RATE, &info_.memory_clock_khz);
    attribute(CU_DEVICE_ATTRIBUTE_GLOBAL_MEMORY_BUS_WIDTH, &info_.bus_width_bits);
    check(api_.cuDeviceTotalMem(&info_.memory_bytes, device_), "cuDeviceTotalMem");
    check(api_.cuDriverGetVersion(&info_.driver_version), "cuDriverGetVersion");
  } catch (const DriverFailure& e) {
    return e.what();
  }
  load_nvml(nvml_);
  return "";
}

void Gpu::check(CUresult r, const char* what) const {
  if (r != CUDA_SUCCESS) throw DriverFailure(std::string(what) + ": " + describe(api_, r));
}

Result<Module> Gpu::load(const std::filesystem::path& file) {
  std::ifstream in(file, std::ios::binary);
  if (!in) return environment_error("cannot read " + file.string());
  const std::string image((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  CUmodule module = nullptr;
  if (CUresult r = api_.cuModuleLoadData(&module, image.data()); r != CUDA_SUCCESS)
    return environment_error("the driver cannot load the module: " + describe(api_, r));
  CUdeviceptr plan_address = 0;
  size_t plan_size = 0;
  if (api_.cuModuleGetGlobal(&plan_address, &plan_size, module, "hw_plan") != CUDA_SUCCESS)
    return invalid_input("the module has no hw_plan (extern \"C\" __device__ const hw_cuda_plan)");
  std::vector<std::byte> bytes(plan_size);
  download(bytes.data(), plan_address, plan_size);
  auto plan = cuda::parse_plan(bytes, static_cast<unsigned>(info_.max_shared_optin));
  if (!plan) return plan.error();
  Module out;
  out.plan = std::move(plan).value();
  for (const auto& launch : out.plan.launches) {
    CUfunction f = nullptr;
    if (api_.cuModuleGetFunction(&f, module, launch.entry.c_str()) != CUDA_SUCCESS)
      return invalid_input("hw_plan names '" + launch.entry +
                           "', which the module does not define");
    if (launch.shared_bytes > 48 * 1024) {
      check(api_.cuFuncSetAttribute(f, CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES,
                                    static_cast<int>(launch.shared_bytes)),
            "cuFuncSetAttribute");
    }
    int max_threads = 0;
    check(api_.cuFuncGetAttribute(&max_threads, CU_FUNC_ATTRIBUTE_MAX_THREADS_PER_BLOCK, f),
          "cuFuncGetAttribute");
    if (static_cast<int>(launch.block) > max_threads) {
      return invalid_input("hw_plan launches '" + launch.entry + "' with " +
                           std::to_string(launch.block) + " threads per block; it can take " +
                           std::to_string(max_threads));
    }
    out.functions.push_back(f);
  }
  return out;
}

CUfunction Gpu::load_own(const std::string& image, const char* entry) {
  CUmodule module = nullptr;
  check(api_.cuModuleLoadData(&module, image.c_str()), "cuModuleLoadData");
  CUfunction f = nullptr;
  check(api_.cuModuleGetFunction(&f, module, entry), "cuModuleGetFunction");
  return f;
}

void Gpu::launch(const Module& module, std::vector<std::byte>& args, CUdeviceptr scratch) {
  for (size_t i = 0; i < module.functions.size(); ++i) {
    const cuda::Launch& l = module.plan.launches[i];
    void* params[] = {args.data(), &scratch};
    check(api_.cuLaunchKernel(module.functions[i], l.grid, 1, 1, l.block, 1, 1, l.shared_bytes,
                              stream_, params, nullptr),
          "cuLaunchKernel");
  }
}

void Gpu::upload(CUdeviceptr to, const void* from, size_t bytes) {
  check(api_.cuMemcpyHtoD(to, from, bytes), "cuMemcpyHtoD");
}
void Gpu::download(void* to, CUdeviceptr from, size_t bytes) {
  check(api_.cuMemcpyDtoH(to, from, bytes), "cuMemcpyDtoH");
}
void Gpu::synchronize() { check(api_.cuStreamSynchronize(stream_), "the kernel failed"); }

std::optional<Gpu::Clock> Gpu::clock() const {
  if (!nvml_.ok()) return std::nullopt;
  Clock c;
  unsigned long long reasons = 0;
  if (nvml_.clock(nvml_.device, kNvmlClockSm, &c.mhz) != 0) return std::nullopt;
  if (nvml_.reasons(nvml_.device, &reasons) == 0) c.throttled = (reasons & kThrottleReasons) != 0;
  return c;
}

EventTimer::EventTimer(Gpu& gpu) : gpu_(gpu) {
  gpu.check(gpu.api().cuEventCreate(&start_, CU_EVENT_DEFAULT), "cuEventCreate");
  gpu.check(gpu.api().cuEventCreate(&end_, CU_EVENT_DEFAULT), "cuEventCreate");
}
void EventTimer::start() {
  gpu_.check(gpu_.api().cuEventRecord(start_, gpu_.stream()), "cuEventRecord");
}
double EventTimer::stop() {
  gpu_.check(gpu_.api().cuEventRecord(end_, gpu_.stream()), "cuEventRecord");
  gpu_.check(gpu_.api().cuEventSynchronize(end_), "the kernel failed");
  float ms = 0.0f;
  gpu_.check(gpu_.api().cuEventElapsedTime(&ms, start_, end_), "cuEventElapsedTime");
  return static_cast<double>(ms) * 1e-3;
}

}  // namespace headway::cuda_runner
