#include "targets/cuda/runner/checked_call.h"

#include <cstring>
#include <vector>

#include "kernels/verify.h"
#include "targets/cuda/device_args.h"

namespace headway::cuda_runner {

std::string changed_input(const SharedBuffers& expected, const std::byte* actual) {
  const auto& specs = expected.specs();
  for (size_t r = 0; r < specs.size(); ++r) {
    if (!expected.layout().in_inputs[r]) continue;
    const auto want = expected.bytes(r);
    if (std::memcmp(want.data(), actual + expected.layout().offset[r], want.size()) != 0)
      return specs[r].name;
  }
  return "";
}

std::string checked_call(Gpu& gpu, const KernelContract& kernel, const Module& module,
                         SharedBuffers& host, DeviceBuffer& inputs, DeviceBuffer& writable,
                         DeviceBuffer& scratch) {
  const auto expected = kernel.reference(host);
  poison_outputs(host, expected);
  const Snapshot before = take_snapshot(host);
  const BufferLayout& layout = host.layout();
  gpu.upload(inputs.address(), host.input_block(), layout.input_bytes);
  gpu.upload(writable.address(), host.writable_block(), layout.writable_bytes);
  gpu.check(gpu.api().cuMemsetD8Async(scratch.address(), 0, scratch.bytes(), gpu.stream()),
            "cuMemsetD8Async");
  auto args = cuda::device_args(kernel, host, inputs.address(), writable.address());
  gpu.launch(module, args, scratch.address());
  gpu.synchronize();
  gpu.download(host.writable_block(), writable.address(), layout.writable_bytes);
  std::vector<std::byte> device_inputs(layout.input_bytes);
  gpu.download(device_inputs.data(), inputs.address(), layout.input_bytes);
  if (std::string region = changed_input(host, device_inputs.data()); !region.empty())
    return "wrote into input `" + region + "`";
  if (auto v = verify(kernel, host, before, expected)) return v->describe();
  return "";
}

}  // namespace headway::cuda_runner
