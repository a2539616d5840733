#pragma once
// The optimizer's lint stage backed by the workspace's legality rules.
#include <string>

#include "knowledge/lint_hook.h"
#include "store/workspace.h"

namespace headway::knowledge {

// A lint hook that rejects a candidate when the detector (rule_detector.h) of a rule that holds
// for `toolchain` (its status for that toolchain is verified, rewritten or carried-unverified;
// retired rules and rules never seen under it do not apply) matches the source. The reason names
// the rule, the detector and the matching line, e.g.
//   "rule 3: the compiler rejects: fatal error: omp.h: No such file or directory (detector
//    /#\s*include\s*[<"]omp\.h[>"]/ matches line 2: `#include <omp.h>`)".
// Rules are read on every call, so a rule learned while the loop runs applies to the next
// candidate. ws must outlive the hook.
LintHook rule_lint(store::Workspace& ws, std::string toolchain);
// The same for whatever toolchain is the workspace's current one at each call (meta
// <target>.toolchain, which `headway migrate` changes while a paused optimizer waits).
LintHook rule_lint_following_workspace(store::Workspace& ws);

}  // namespace headway::knowledge
