#pragma once
// The cpu target's host ABI of each kernel: the C entry point a candidate defines
// (include/headway/headway_kernel.h), how the runner calls it on the shared buffers, and the plain
// single-threaded baseline (kernels/baselines/, embedded into the binary).
#include <string_view>

#include "kernels/contract.h"
#include "kernels/shared_buffers.h"

namespace headway::cpu {

struct HostAbi {
  std::string_view entry_symbol;  // e.g. "hw_qkv"
  // Calls `entry` (a function of the kernel's ABI signature) with its argument struct filled
  // from the buffers' regions.
  void (*invoke)(void* entry, SharedBuffers& buffers) = nullptr;
  std::string_view baseline_path;  // e.g. "kernels/baselines/qkv.cc"
  // The baseline's text as embedded in the binary.
  std::string_view baseline_source() const;
};

// The host ABI of `kernel` (by name). Throws std::logic_error for a kernel without one: every
// kernel in kernel_names() has one, so that is a bug.
const HostAbi& host_abi(const KernelContract& kernel);

}  // namespace headway::cpu
