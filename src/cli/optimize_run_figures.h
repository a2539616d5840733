#pragma once
// What `headway optimize --json` says of how the run went, beyond its final heads (docs/CLI.md,
// optimize): each kernel's head time against device time, the device time until every kernel
// was within 1.25x and 1.10x of its floor, and on a target that knows its truth (sim) the
// acceptance tests judged against it.
#include <filesystem>
#include <nlohmann/json.hpp>

#include "kernels/kernel_catalog.h"
#include "store/workspace.h"
#include "targets/target.h"

namespace headway::cli {

// Adds to `out` (optimize's JSON object, with its "kernels" from the final timing):
//   "device_seconds"               every kernel's device time in the workspace
//   "device_seconds_to_1_25x", "device_seconds_to_1_10x"
//                                  from loop::device_seconds_to_within over the kernels' curves
//                                  and floors; null when never reached
//   "truth"                        {judged, false_accepts, true_gains, false_rejects} over the
//                                  kernels (loop/truth_audit.h); null when the target knows none
// and to each kernel "curve", [[device_seconds, head_ms], ...] (loop::head_curve), and "truth".
// Each kernel of "kernels" must be in `catalog`.
void add_run_figures(store::Workspace& ws, targets::Target& target, const KernelCatalog& catalog,
                     const std::filesystem::path& cache_dir, nlohmann::json* out);

}  // namespace headway::cli
