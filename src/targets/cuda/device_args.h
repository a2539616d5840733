#pragma once
// The argument struct of a kernel's ABI (include/headway/headway_kernel.h) for a call on the
// device: every pointer is the region's address in the device copy of the buffers (the input block
// at `inputs`, the writable block at `writable`, laid out as BufferLayout lays out the host
// blocks), every scalar read from the host buffers.
#include <cstddef>
#include <cstdint>
#include <vector>

#include "kernels/contract.h"
#include "kernels/shared_buffers.h"

namespace headway::cuda {

// The struct's bytes, ready to be passed by value as a kernel parameter. A kernel made from a spec
// (not built in) has the generic ABI's struct, as on the cpu target (targets/cpu/host_abi.h): one
// pointer per argument in the spec's order, then `const int64_t* dims`, the struct the candidate
// declares as `hw_NAME_args` (a scalar argument too is a pointer to its value). Throws
// std::logic_error for a kernel without an ABI struct.
std::vector<std::byte> device_args(const KernelContract& kernel, const SharedBuffers& host,
                                   uint64_t inputs, uint64_t writable);

}  // namespace headway::cuda
