#pragma once
// A kernel's entry into a workspace: the first run that optimizes it records its floor and its
// timed baseline as the root and first head of its Design Tree (trees/design_tree.h).
#include <functional>
#include <optional>
#include <string>

#include "kernels/kernel_catalog.h"
#include "store/workspace.h"
#include "targets/target.h"
#include "trees/design_tree.h"

namespace headway::loop {

// The kernel of that name in `catalog` (the run's: OptimizeOptions::catalog); throws a Failure
// (not found) when there is none.
const KernelContract& kernel_or_fail(const KernelCatalog& catalog, const std::string& name);

// Builds a source on the run's target (the loop serializes builds).
using BuildFn = std::function<targets::BuildOutcome(const std::string& source)>;

// Registers `kernel` on `target` unless the workspace has it already: its memory floor from the
// chip facts (measured first when missing: loop/kernel_floors.h) and its baseline source built
// with `build` and timed with `baseline_readings` readings. Returns the new tree, or nullopt when
// the kernel was registered before. Throws KernelStopped (loop/kernel_stopped.h) when the
// baseline does not build or fails its timing, and a Failure (common/result.h) with the store's
// code when the tree cannot be stored.
std::optional<trees::DesignTree> register_kernel(store::Workspace& ws, targets::Target& target,
                                                 const KernelContract& kernel, const BuildFn& build,
                                                 int baseline_readings);

// What a killed run left of a kernel's decisions: unfinished acceptance tests and races are
// deleted with their readings (neither may be half-counted). Call before a run decides anything
// of the kernel, while no other process runs on it.
void discard_unfinished_decisions(trees::DesignTree& tree);

}  // namespace headway::loop
