#include <fmt/format.h>

#include <memory>
#include <nlohmann/json.hpp>
#include <string>

#include "cli/cli_support.h"
#include "cli/verbs.h"
#include "knowledge/head_export.h"
#include "knowledge/workspace_target.h"
#include "store/workspace.h"

namespace headway::cli {

namespace {
struct InitArgs {
  std::string dir = ".";
  bool json = false;
  std::string target;    // empty: decided by the first `headway optimize --target` (cpu by default)
  std::string manifest;  // the command target's manifest
  std::string toolchain;  // the target's toolchain spec (empty: its default)
};

int run_init(const InitArgs& args) {
  // The target is checked before the workspace is created: a bad manifest leaves nothing behind.
  std::unique_ptr<targets::Target> target;
  if (!args.manifest.empty() && args.target != "command") {
    throw UsageError("--manifest is for --target command");
  }
  if (!args.toolchain.empty() && args.target.empty()) {
    throw UsageError("--toolchain needs --target (the toolchain is the target's)");
  }
  if (!args.target.empty()) {
    target = target_or_throw(args.target, args.toolchain, args.manifest);
    if (!target->identity().found) {
      fail_with(Error{target->identity().error_code, target->identity().error});
    }
  }
  auto ws = store::Workspace::create(args.dir);
  if (!ws) fail_with(ws.error());
  if (target) {
    knowledge::set_workspace_target_name(*ws, target->name());
    knowledge::set_workspace_toolchain(*ws, *target);
    // What `headway export --format patch` applies to.
    knowledge::record_repository_commit(*ws, *target);
  }
  if (args.json) {
    const nlohmann::json out = {{"root", ws->root().string()},
                                {"schema_version", ws->schema_version()},
                                {"target", target ? std::string(target->name()) : std::string()}};
    fmt::print("{}\n", out.dump(2));
    return kExitOk;
  }
  fmt::print("{}\n", ws->root().string());
  return kExitOk;
}
}  // namespace

void add_init(CLI::App& app, int* exit_code) {
  auto args = std::make_shared<InitArgs>();
  auto* cmd = app.add_subcommand("init", "Make a directory a headway workspace (prints its path)");
  cmd->add_option("dir", args->dir, "directory to make a workspace (default: the current one)");
  cmd->add_flag("--json", args->json, "print one JSON object");
  cmd->add_option(
      "--target", args->target,
      "the target the workspace optimizes for: cpu, sim, command, cuda (default: set by "
      "the first optimize)");
  cmd->add_option("--manifest", args->manifest,
                  "the command target's TOML manifest (docs/TARGETS.md)");
  cmd->add_option("--toolchain", args->toolchain,
                  "the target's toolchain: cpu, a C++ compiler; cuda, NVCC[@sm_NN] or emulated "
                  "(host threads, no GPU: docs/targets/cuda.md); the workspace keeps it");
  cmd->callback([args, exit_code] { run_verb(exit_code, [&] { return run_init(*args); }); });
}

}  // namespace headway::cli
