#pragma once
// The kernel specs a workspace has added (`headway kernel add`, docs/KERNELS.md): each is a copy
// of the spec and the files it names, under DIR/kernels/NAME/, so that the contract a tree was
// judged by stays as it was while the user's own copy changes.
#include <filesystem>
#include <string>
#include <vector>

#include "common/result.h"
#include "kernels/contract.h"
#include "store/workspace.h"

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

// The spec files the workspace has added, by kernel name (sorted).
std::vector<std::filesystem::path> workspace_kernel_specs(const store::Workspace& ws);

// Loads every added spec (kernels/spec_kernel.h: its reference built under cache_dir) and
// declares each at its first shape set, so that find_kernel knows them; returns their names. The
// first spec that does not load is the error.
Result<std::vector<std::string>> load_workspace_kernels(const store::Workspace& ws,
                                                        const std::filesystem::path& cache_dir);

}  // namespace headway::knowledge
