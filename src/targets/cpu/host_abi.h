#pragma once
// The cpu target's host ABI of each kernel: the C entry point a candidate defines
// (include/headway/headway_kernel.h), how the runner calls it on the shared buffers, and the plain
// single-threaded baseline (kernels/baselines/, embedded into the binary). A kernel made from a
// spec (kernels/spec_kernel.h) has the generic ABI: `void hw_NAME(const struct hw_NAME_args* a)`,
// the struct holding one pointer per argument in the spec's order and then `const int64_t* dims`
// (docs/KERNELS.md), and
// its baseline is the spec's `baselines.cpu` file.
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "kernels/contract.h"
#include "kernels/shared_buffers.h"

namespace headway::cpu {

struct HostAbi {
  std::string entry_symbol;  // e.g. "hw_qkv"
  // Calls `entry` (a function of the kernel's ABI signature) with its argument struct filled
  // from the buffers' regions.
  void (*invoke)(void* entry, SharedBuffers& buffers) = nullptr;
  std::string baseline_path;  // e.g. "kernels/baselines/qkv.cc"; a spec's: absolute
  bool baseline_embedded = true;
  // The baseline's text: as embedded in the binary, or read from the spec's file. Throws
  // Failure (invalid input) when a spec names no cpu baseline or it cannot be read.
  std::string baseline_source() const;
};

// The host ABI of `kernel`. Throws std::logic_error for a kernel without one (a kernel declared
// by a command target's manifest, which the cpu target cannot run).
HostAbi host_abi(const KernelContract& kernel);

// The generic ABI's call: `entry` gets an array of the regions' base pointers, in region order.
void invoke_generic(void* entry, SharedBuffers& buffers);

// A spec kernel's regions as the runner takes them (`--regions`): "bytes:role:row_bytes" per
// region, comma-separated (role 0..3 as RegionRole); decode_regions is nullopt for a malformed one.
std::string encode_regions(const std::vector<RegionSpec>& regions);
std::optional<std::vector<RegionSpec>> decode_regions(std::string_view text);

}  // namespace headway::cpu
