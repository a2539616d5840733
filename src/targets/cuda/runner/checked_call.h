#pragma once
// One verified call of a candidate's plan on the device, and the input check it makes.
#include <cstddef>
#include <string>

#include "kernels/contract.h"
#include "kernels/shared_buffers.h"
#include "targets/cuda/runner/gpu.h"

namespace headway::cuda_runner {

// The first region whose bytes differ between two input blocks of one layout, or "".
std::string changed_input(const SharedBuffers& expected, const std::byte* actual);

// Checks one call on the device's copy of `host`: poisons the outputs, uploads both blocks,
// launches, downloads and verifies. Returns "" when correct, else the violation.
std::string checked_call(Gpu& gpu, const KernelContract& kernel, const Module& module,
                         SharedBuffers& host, DeviceBuffer& inputs, DeviceBuffer& writable,
                         DeviceBuffer& scratch);

}  // namespace headway::cuda_runner
