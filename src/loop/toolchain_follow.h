#pragma once
// A run follows its workspace's toolchain (meta <target>.toolchain, set by `headway migrate`):
// after a pause it adopts the toolchain the workspace moved to meanwhile.
#include <string>

#include "store/workspace.h"
#include "targets/target.h"

namespace headway::loop {

// `ws` and `target` must outlive it.
class ToolchainFollower {
 public:
  // Remembers the workspace's toolchain spec as it is now.
  ToolchainFollower(store::Workspace& ws, targets::Target& target);

  // Selects the workspace's toolchain on the target when it changed since last seen, and says
  // which toolchain the run uses now, for a progress line: "toolchain V" when unchanged, else
  // "toolchain now SPEC (V, was W)". Throws a Failure (environment) when the target cannot use
  // the new toolchain.
  std::string follow();

 private:
  store::Workspace& ws_;
  targets::Target& target_;
  std::string seen_;  // the workspace's toolchain spec as last seen
};

}  // namespace headway::loop
