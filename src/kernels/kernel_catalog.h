#pragma once
// The kernels one run of headway knows, as a value: the built-in ones (kernels/contract.h) and
// those added to it, a workspace's specs (knowledge/workspace_kernels.h), a spec named on a
// command line, or a command target's manifest's declarations. A verb makes one where it opens
// its workspace (or has none) and passes it down to the loop, the targets' calls and the reports;
// nothing looks a kernel up in a process-wide table.
//
// Ownership: the catalog shares ownership of every contract it holds; a contract it hands out
// stays valid while the catalog or any copy of it lives, also after another one is added under
// its name. Thread-safety: const methods may be called from several threads at once; adding is
// for one thread, before the catalog is shared.
#include <cstdint>
#include <filesystem>
#include <map>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "common/result.h"
#include "kernels/contract.h"

namespace headway {

class KernelCatalog {
 public:
  // The built-in kernels only.
  KernelCatalog() = default;

  // Adds `kernel` under its name, replacing a kernel added under it before. A built-in name or an
  // invalid one (kernels/declared_kernel.h, valid_kernel_name) is an error.
  Result<const KernelContract*> add(std::shared_ptr<const KernelContract> kernel);
  // Adds a kernel known only by its name and the bytes it moves (kernels/declared_kernel.h); zero
  // bytes is an error too. The same name and bytes again returns the contract added before.
  Result<const KernelContract*> declare(std::string_view name, uint64_t bytes);
  // Adds the spec at `file` at `shape_set` (empty: its first timed one), owning its other sets
  // (kernels/spec_kernel.h, load_spec_kernel): it is read now; its reference is built under
  // cache_dir when first called for, its build's errors led by `label` when given.
  Result<const KernelContract*> add_spec(const std::filesystem::path& file,
                                         const std::filesystem::path& cache_dir,
                                         std::string_view shape_set = "", std::string label = "");

  // The kernel of that name: a built-in one, else one added; nullptr for an unknown name.
  const KernelContract* find_kernel(std::string_view name) const;
  // Every kernel: the built-in ones in their order, then the added ones sorted by name.
  std::vector<const KernelContract*> kernels() const;
  // The added kernels, sorted by name.
  std::vector<const KernelContract*> added() const;
  // The names of kernels(), comma-separated: what an error about an unknown kernel lists.
  std::string known_text() const;

 private:
  std::map<std::string, std::shared_ptr<const KernelContract>, std::less<>> added_;
  // Every contract ever added (replaced ones too), so that none handed out is freed.
  std::vector<std::shared_ptr<const KernelContract>> kept_;
};

}  // namespace headway
