#include "kernels/declared_kernel.h"

#include <fmt/format.h>

#include <map>
#include <memory>
#include <mutex>
#include <stdexcept>

namespace headway {

namespace {

struct Declared {
  std::mutex mu;
  // Every contract ever declared: pointers stay valid.
  std::vector<std::unique_ptr<KernelContract>> kept;
  std::map<std::string, const KernelContract*, std::less<>> by_name;
};

Declared& declared() {
  static auto* d = new Declared;  // never destroyed: contracts may be used during exit
  return *d;
}

}  // namespace

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

Result<const KernelContract*> declare_kernel(std::string_view name, uint64_t bytes) {
  if (auto valid = valid_kernel_name(name); !valid) return valid.error();
  if (is_builtin_kernel(name)) {
    return invalid_input(
        fmt::format("kernel {} is built in: its contract is headway's, not a declaration", name));
  }
  if (bytes == 0) return invalid_input(fmt::format("kernel {} must move some bytes", name));
  {
    Declared& d = declared();
    std::lock_guard lock(d.mu);
    if (auto it = d.by_name.find(name);
        it != d.by_name.end() && !it->second->spec() && it->second->bytes_to_move() == bytes)
      return it->second;
  }
  return declare_contract(std::make_unique<DeclaredKernel>(std::string(name), bytes));
}

Result<const KernelContract*> declare_contract(std::unique_ptr<KernelContract> kernel) {
  const std::string name(kernel->name());
  if (auto valid = valid_kernel_name(name); !valid) return valid.error();
  if (is_builtin_kernel(name)) {
    return invalid_input(
        fmt::format("kernel {} is built in: its contract is headway's, not a declaration", name));
  }
  Declared& d = declared();
  std::lock_guard lock(d.mu);
  const KernelContract* k = d.kept.emplace_back(std::move(kernel)).get();
  d.by_name[name] = k;
  return k;
}

const KernelContract* find_declared_kernel(std::string_view name) {
  Declared& d = declared();
  std::lock_guard lock(d.mu);
  const auto it = d.by_name.find(name);
  return it == d.by_name.end() ? nullptr : it->second;
}

std::vector<std::string> declared_kernel_names() {
  Declared& d = declared();
  std::lock_guard lock(d.mu);
  std::vector<std::string> names;
  for (const auto& [name, k] : d.by_name) names.push_back(name);
  return names;
}

}  // namespace headway
