#pragma once
// A cuda candidate's launch plan (include/headway/headway_cuda.h, hw_plan) as the runner reads it
// from the loaded module: the bytes of the device constant, validated before anything launches.
#include <cstddef>
#include <cstdint>
#include <span>
#include <string>
#include <vector>

#include "common/result.h"

namespace headway::cuda {

struct Launch {
  std::string entry;
  unsigned grid = 0;
  unsigned block = 0;
  unsigned shared_bytes = 0;
};

struct LaunchPlan {
  std::vector<Launch> launches;  // at least one
  uint64_t scratch_bytes = 0;
};

// The size of hw_cuda_plan in a module built for a 64-bit host.
size_t plan_bytes();

// Parses and validates hw_plan's bytes: entries until the first empty name, each name
// NUL-terminated and a C identifier, grid at least 1, block 1-1024, dynamic shared memory at most
// `max_shared_bytes`, scratch at most HW_CUDA_MAX_SCRATCH. An error says which launch is wrong.
Result<LaunchPlan> parse_plan(std::span<const std::byte> bytes, unsigned max_shared_bytes);

}  // namespace headway::cuda
