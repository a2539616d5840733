#include "targets/cuda/launch_plan.h"

#include <fmt/format.h>

#include <cstring>

#include "headway/headway_cuda.h"

namespace headway::cuda {
namespace {

bool is_identifier(const std::string& s) {
  if (s.empty() || !(std::isalpha(static_cast<unsigned char>(s[0])) || s[0] == '_')) return false;
  for (char c : s) {
    if (!(std::isalnum(static_cast<unsigned char>(c)) || c == '_')) return false;
  }
  return true;
}

}  // namespace

size_t plan_bytes() { return sizeof(hw_cuda_plan); }

Result<LaunchPlan> parse_plan(std::span<const std::byte> bytes, unsigned max_shared_bytes) {
  if (bytes.size() != sizeof(hw_cuda_plan)) {
    return invalid_input(fmt::format("hw_plan is {} bytes, not the {} of hw_cuda_plan",
                                     bytes.size(), sizeof(hw_cuda_plan)));
  }
  hw_cuda_plan raw;
  std::memcpy(&raw, bytes.data(), sizeof raw);
  LaunchPlan plan;
  for (int i = 0; i < HW_CUDA_MAX_LAUNCHES; ++i) {
    const hw_cuda_launch& l = raw.launches[i];
    const void* nul = std::memchr(l.entry, 0, sizeof l.entry);
    if (!nul) return invalid_input(fmt::format("launch {}: the entry name is not terminated", i));
    std::string entry(l.entry);
    if (entry.empty()) break;
    if (!is_identifier(entry))
      return invalid_input(fmt::format("launch {}: '{}' is not a function name", i, entry));
    if (l.grid < 1 || l.grid > 0x7fffffffu)
      return invalid_input(
          fmt::format("launch {} ({}): grid {} is not in 1..2^31-1", i, entry, l.grid));
    if (l.block < 1 || l.block > 1024)
      return invalid_input(
          fmt::format("launch {} ({}): block {} is not in 1..1024", i, entry, l.block));
    if (l.shared_bytes > max_shared_bytes) {
      return invalid_input(
          fmt::format("launch {} ({}): {} bytes of shared memory, the device has {}", i, entry,
                      l.shared_bytes, max_shared_bytes));
    }
    plan.launches.push_back({std::move(entry), l.grid, l.block, l.shared_bytes});
  }
  if (plan.launches.empty())
    return invalid_input("hw_plan launches nothing (its first entry name is empty)");
  if (raw.scratch_bytes > HW_CUDA_MAX_SCRATCH) {
    return invalid_input(fmt::format("hw_plan asks for {} bytes of scratch, at most {}",
                                     raw.scratch_bytes, HW_CUDA_MAX_SCRATCH));
  }
  plan.scratch_bytes = raw.scratch_bytes;
  return plan;
}

}  // namespace headway::cuda
