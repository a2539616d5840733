#include "kernels/contract.h"

#include <fmt/format.h>

#include <cmath>

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

std::vector<const KernelContract*> timed_shape_sets(const KernelContract& kernel) {
  std::vector<const KernelContract*> out;
  for (const KernelContract* at : kernel.shape_sets()) {
    if (!at->check_only()) out.push_back(at);
  }
  return out;
}

const std::vector<const KernelContract*>& builtin_kernels() {
  // Never destroyed: contracts may be used during exit.
  static const auto* kernels = [] {
    auto* k = new std::vector<const KernelContract*>;
    for (const char* name : {"qkv", "attn_out", "ffn"})
      k->push_back(
          embedded_spec_kernel(fmt::format("kernels/specs/gemma4/{}.toml", name)).release());
    return k;
  }();
  return *kernels;
}

const KernelContract* builtin_kernel(std::string_view name) {
  for (const KernelContract* k : builtin_kernels()) {
    if (k->name() == name) return k;
  }
  return nullptr;
}

bool is_builtin_kernel(std::string_view name) { return builtin_kernel(name) != nullptr; }

std::vector<std::string> builtin_kernel_names() {
  std::vector<std::string> names;
  for (const KernelContract* k : builtin_kernels()) names.emplace_back(k->name());
  return names;
}

}  // namespace headway
