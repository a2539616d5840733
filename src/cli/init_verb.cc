#include <fmt/format.h>

#include <memory>
#include <nlohmann/json.hpp>
#include <string>

#include "cli/cli_support.h"
#include "cli/verbs.h"
#include "store/workspace.h"

namespace headway::cli {

namespace {
struct InitArgs {
  std::string dir = ".";
  bool json = false;
};

int run_init(const InitArgs& args) {
  auto ws = store::Workspace::create(args.dir);
  if (!ws) throw UsageError(ws.error().message);
  if (args.json) {
    const nlohmann::json out = {{"root", ws->root().string()},
                                {"schema_version", ws->schema_version()}};
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
  cmd->callback([args, exit_code] { run_verb(exit_code, [&] { return run_init(*args); }); });
}

}  // namespace headway::cli
