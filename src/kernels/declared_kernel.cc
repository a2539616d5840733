#include "kernels/declared_kernel.h"

#include <fmt/format.h>

#include <stdexcept>

namespace headway {

std::vector<RegionSpec> DeclaredKernel::regions() const {
  return {{"declared_bytes", static_cast<size_t>(bytes_), RegionRole::kInput}};
}

void DeclaredKernel::generate(uint64_t, SharedBuffers&) const {
  throw std::logic_error(fmt::format(
      "kernel {} is declared by a manifest: its inputs are the toolchain's, not headway's", name_));
}

std::vector<ExpectedOutput> DeclaredKernel::reference(const SharedBuffers&) const {
  throw std::logic_error(fmt::format(
      "kernel {} is declared by a manifest: its oracle is the toolchain's check command", name_));
}

Result<void> valid_kernel_name(std::string_view name) {
  bool ok = !name.empty() && name.front() >= 'a' && name.front() <= 'z';
  for (const char c : name) ok &= (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '_';
  if (!ok || name.size() > 64) {
    return invalid_input(fmt::format(
        "'{}' is not a kernel name: a lowercase letter, then up to 63 lowercase letters, digits "
        "and '_'",
        name));
  }
  return {};
}

}  // namespace headway
