#pragma once
// Which target a workspace optimizes for and which toolchain it currently uses: meta `target`
// (set when a workspace is first optimized with `--target`; "cpu" when unset) and meta
// `<target>.toolchain` (the toolchain spec `headway migrate` moved it to; the target's default
// when unset). Facts, rules and timings are keyed on the current toolchain's id.
#include <memory>
#include <string>
#include <string_view>

#include "common/result.h"
#include "store/workspace.h"
#include "targets/target.h"

namespace headway::knowledge {

std::string workspace_target_name(store::Workspace& ws);
// Records `target` as the workspace's target.
void set_workspace_target_name(store::Workspace& ws, std::string_view target);
// The toolchain spec stored for `target`; empty: the target's default.
std::string workspace_toolchain(store::Workspace& ws, std::string_view target);
// Stores `spec` as the toolchain of `target`, with its id (meta `<target>.toolchain_id`).
void set_workspace_toolchain(store::Workspace& ws, const targets::Target& target);

// The workspace's target (targets/registry/registry.h) with the workspace's toolchain selected;
// never null. A not-found error when the target is not available in this build.
Result<std::unique_ptr<targets::Target>> open_workspace_target(store::Workspace& ws);

// The id knowledge is keyed on: the target's identity id, or "unidentified:<toolchain spec>"
// when the toolchain cannot be identified.
std::string toolchain_id_of(const targets::Target& target);
// toolchain_id_of(open_workspace_target(ws)); throws std::runtime_error when the workspace's
// target is not available in this build.
std::string current_toolchain_id(store::Workspace& ws);

}  // namespace headway::knowledge
