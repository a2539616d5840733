#include <fmt/format.h>

#include <memory>
#include <string>

#include "cli/cli_support.h"
#include "cli/verbs.h"
#include "knowledge/migration.h"

namespace headway::cli {

namespace {
struct MigrateArgs {
  std::string toolchain;
  std::string workspace;
};

int run_migrate(const MigrateArgs& args) {
  store::Workspace ws = open_workspace_or_throw(args.workspace);
  cpu::Toolchain to;
  to.cxx = args.toolchain;
  auto report = knowledge::migrate_toolchain(ws, to, {build_cache_dir(), true});
  if (!report) throw UsageError(report.error().message);
  fmt::print("migrated from {}\n          to {}\n", report->from_id, report->to_id);
  for (const auto& n : report->notes) fmt::print("  {}\n", n);
  fmt::print("{}\n", report->summary());
  return report->heads_broken > 0 ? 1 : 0;
}
}  // namespace

void add_migrate(CLI::App& app, int* exit_code) {
  auto args = std::make_shared<MigrateArgs>();
  auto* cmd = app.add_subcommand("migrate", "Move the workspace to a new cpu toolchain: re-check rules and heads");
  cmd->add_option("--toolchain", args->toolchain, "compiler command: clang++, g++-12, or a path")->required();
  cmd->add_option("--workspace", args->workspace,
                  "workspace directory (default: the nearest one up from here)");
  cmd->callback([args, exit_code] { run_verb(exit_code, [&] { return run_migrate(*args); }); });
}

}  // namespace headway::cli
