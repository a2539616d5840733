#include "kernels/kernel_catalog.h"

#include <fmt/format.h>

#include "kernels/declared_kernel.h"
#include "kernels/spec_kernel.h"

namespace headway {

Result<const KernelContract*> KernelCatalog::add(std::shared_ptr<const KernelContract> kernel) {
  const std::string name(kernel->name());
  if (auto valid = valid_kernel_name(name); !valid) return valid.error();
  if (is_builtin_kernel(name)) {
    return invalid_input(
        fmt::format("kernel {} is built in: its contract is headway's, not a declaration", name));
  }
  kept_.push_back(kernel);
  added_[name] = kernel;
  return kernel.get();
}

Result<const KernelContract*> KernelCatalog::declare(std::string_view name, uint64_t bytes) {
  if (auto valid = valid_kernel_name(name); !valid) return valid.error();
  if (bytes == 0 && !is_builtin_kernel(name))
    return invalid_input(fmt::format("kernel {} must move some bytes", name));
  if (auto it = added_.find(name);
      it != added_.end() && !it->second->spec() && it->second->bytes_to_move() == bytes)
    return it->second.get();
  return add(std::make_shared<DeclaredKernel>(std::string(name), bytes));
}

Result<const KernelContract*> KernelCatalog::add_spec(const std::filesystem::path& file,
                                                      const std::filesystem::path& cache_dir,
                                                      std::string_view shape_set,
                                                      std::string label) {
  auto kernel = load_spec_kernel(file, cache_dir, shape_set, std::move(label));
  if (!kernel) return kernel.error();
  return add(std::shared_ptr<const KernelContract>(std::move(kernel).value()));
}

const KernelContract* KernelCatalog::find_kernel(std::string_view name) const {
  if (const KernelContract* k = builtin_kernel(name)) return k;
  const auto it = added_.find(name);
  return it == added_.end() ? nullptr : it->second.get();
}

std::vector<const KernelContract*> KernelCatalog::kernels() const {
  std::vector<const KernelContract*> out = builtin_kernels();
  for (const KernelContract* k : added()) out.push_back(k);
  return out;
}

std::vector<const KernelContract*> KernelCatalog::added() const {
  std::vector<const KernelContract*> out;
  for (const auto& [name, k] : added_) out.push_back(k.get());
  return out;
}

std::string KernelCatalog::known_text() const {
  std::string known;
  for (const KernelContract* k : kernels())
    known += fmt::format("{}{}", known.empty() ? "" : ", ", k->name());
  return known;
}

}  // namespace headway
