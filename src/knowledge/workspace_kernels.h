#pragma once
// The kernel specs a workspace has added (`headway kernel add`, docs/KERNELS.md): each is a copy
// of the spec and the files it names, under DIR/kernels/NAME/, so that the contract a tree was
// judged by stays as it was while the user's own copy changes.
#include <filesystem>
#include <string>
#include <vector>

#include "common/result.h"
#include "kernels/kernel_catalog.h"
#include "store/workspace.h"
#include "trees/design_tree.h"

namespace headway::knowledge {

// DIR/kernels: where the workspace at `root` keeps its specs.
std::filesystem::path workspace_kernels_dir(const std::filesystem::path& root);

// Copies the spec at `spec_file` (which must load) and the reference and baselines it names into
// DIR/kernels/NAME/, keeping their paths relative to the spec; returns the copied spec's path. A
// file the spec names outside its own folder, a built-in kernel's name, or a kernel already added
// (unless `replace`) is an error, and nothing is written then.
Result<std::filesystem::path> add_workspace_kernel(const store::Workspace& ws,
                                                   const std::filesystem::path& spec_file,
                                                   bool replace);

// The spec files the workspace at `root` has added, by kernel name (sorted).
std::vector<std::filesystem::path> workspace_kernel_specs(const std::filesystem::path& root);

// The built-in kernels and every spec the workspace at `root` has added, at its first shape set
// (kernels/kernel_catalog.h). Each spec is read, not built: its reference is built under
// cache_dir when first called for, an error of that build led by "workspace kernel NAME". The
// first spec that does not read is the error.
Result<KernelCatalog> workspace_catalog(const std::filesystem::path& root,
                                        const std::filesystem::path& cache_dir);

// A kernel the workspace records (it has a Design Tree) with its contract in a catalog: nullptr
// where the catalog does not know its name (a spec no longer added, a manifest's kernel under
// another target).
struct RecordedKernel {
  trees::KernelRecord record;
  const KernelContract* contract = nullptr;
};
// Every kernel the workspace records (trees::DesignTree::kernels), in its order, with its contract
// in `catalog`: where the kernels a workspace's database names meet their contracts.
std::vector<RecordedKernel> recorded_kernels(store::Workspace& ws, const KernelCatalog& catalog);

}  // namespace headway::knowledge
