#pragma once
// The figures an optimize run ends with. The heads' figures from their acceptance tests come from
// whatever the machine was doing then; these are measured together: every kernel's baseline and
// head timed side by side (interleaved readings) under the workspace's current toolchain, stored
// per toolchain (knowledge/kernel_timings.h).
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "kernels/kernel_catalog.h"
#include "store/workspace.h"
#include "targets/target.h"

namespace headway::cli {

// Times and stores them; one object per kernel (docs/CLI.md, `optimize --json`'s "kernels"). Each
// of `kernels` must be in `catalog`.
nlohmann::json time_heads_side_by_side(store::Workspace& ws, targets::Target& target,
                                       const KernelCatalog& catalog,
                                       const std::vector<std::string>& kernels);
// Prints those objects, a line per kernel (and its floor's and failure's lines).
void print_timed(const nlohmann::json& kernels);

}  // namespace headway::cli
