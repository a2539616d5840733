#include "kernels/contract.h"

#include <fmt/format.h>

#include <cmath>

#include "kernels/declared_kernel.h"
#include "kernels/spec_kernel.h"

namespace headway {

bool Tolerance::accepts(double got, double expected) const {
  if (!std::isfinite(got) || !std::isfinite(expected)) return false;
  return std::fabs(got - expected) <= atol + rtol * std::fabs(expected);
}

uint64_t KernelContract::bytes_to_move() const {
  uint64_t total = 0;
  for (const auto& r : regions()) {
    switch (r.role) {
      case RegionRole::kInput:
      case RegionRole::kOutput:
        total += r.bytes;
        break;
      case RegionRole::kInOut:
        total += 2 * r.bytes;
        break;
      case RegionRole::kCache:
        total += r.row_bytes;
        break;
    }
  }
  return total;
}

namespace {
const std::vector<std::unique_ptr<KernelContract>>& all_kernels() {
  static const auto kernels = [] {
    std::vector<std::unique_ptr<KernelContract>> k;
    for (const char* name : {"qkv", "attn_out", "ffn"})
      k.push_back(embedded_spec_kernel(fmt::format("kernels/specs/gemma4/{}.toml", name)));
    return k;
  }();
  return kernels;
}
}  // namespace

const KernelContract* find_kernel(std::string_view name) {
  for (const auto& k : all_kernels()) {
    if (k->name() == name) return k.get();
  }
  return find_declared_kernel(name);
}

bool is_builtin_kernel(std::string_view name) {
  for (const auto& k : all_kernels()) {
    if (k->name() == name) return true;
  }
  return false;
}

std::vector<std::string> kernel_names() {
  std::vector<std::string> names;
  for (const auto& k : all_kernels()) names.emplace_back(k->name());
  return names;
}

}  // namespace headway
