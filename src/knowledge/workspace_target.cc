#include "knowledge/workspace_target.h"

#include <fmt/format.h>

#include <stdexcept>

#include "targets/registry/registry.h"

namespace headway::knowledge {

std::string workspace_target_name(store::Workspace& ws) {
  const auto name = ws.meta("target");
  return name && !name->empty() ? *name : std::string("cpu");
}

void set_workspace_target_name(store::Workspace& ws, std::string_view target) {
  ws.set_meta("target", std::string(target));
}

std::string workspace_toolchain(store::Workspace& ws, std::string_view target) {
  return ws.meta(fmt::format("{}.toolchain", target)).value_or("");
}

void set_workspace_toolchain(store::Workspace& ws, const targets::Target& target) {
  ws.set_meta(fmt::format("{}.toolchain", target.name()), target.toolchain());
  ws.set_meta(fmt::format("{}.toolchain_id", target.name()), toolchain_id_of(target));
}

Result<std::unique_ptr<targets::Target>> open_workspace_target(store::Workspace& ws) {
  const std::string name = workspace_target_name(ws);
  auto target = targets::make_target(name, workspace_toolchain(ws, name));
  if (!target) {
    return not_found(
        fmt::format("the workspace's target '{}' is not available in this build", name));
  }
  return target;
}

std::string toolchain_id_of(const targets::Target& target) {
  return target.identity().found ? target.identity().id : "unidentified:" + target.toolchain();
}

std::string current_toolchain_id(store::Workspace& ws) {
  const auto target = open_workspace_target(ws);
  if (!target) throw std::runtime_error(target.error().message);
  return toolchain_id_of(*target.value());
}

}  // namespace headway::knowledge
