#include "loop/toolchain_follow.h"

#include <fmt/format.h>

#include "common/result.h"
#include "knowledge/workspace_target.h"

namespace headway::loop {

ToolchainFollower::ToolchainFollower(store::Workspace& ws, targets::Target& target)
    : ws_(ws), target_(target), seen_(knowledge::workspace_toolchain(ws, target.name())) {}

std::string ToolchainFollower::follow() {
  const std::string now = knowledge::workspace_toolchain(ws_, target_.name());
  if (now == seen_) return fmt::format("toolchain {}", target_.identity().version);
  const std::string was = target_.identity().version;
  const targets::ToolchainInfo id = target_.select_toolchain(now);
  if (!id.found) {
    fail_with(environment_error(
        fmt::format("the workspace's new toolchain '{}': {}", target_.toolchain(), id.error)));
  }
  seen_ = now;
  return fmt::format("toolchain now {} ({}, was {})", target_.toolchain(), id.version, was);
}

}  // namespace headway::loop
