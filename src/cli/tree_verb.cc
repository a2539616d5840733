#include <fmt/format.h>

#include <memory>
#include <string>

#include "cli/cli_support.h"
#include "cli/verbs.h"
#include "search/design_tree.h"
#include "search/tree_render.h"
#include "store/workspace.h"

namespace headway::cli {

namespace {
struct TreeArgs {
  std::string kernel;
  std::string format = "text";
  std::string workspace;  // empty: search upward from the current directory
};

int run_tree(const TreeArgs& args) {
  if (args.format != "text" && args.format != "dot") {
    throw UsageError(fmt::format("unknown format '{}' (text or dot)", args.format));
  }
  store::Workspace ws = open_workspace_or_throw(args.workspace);
  auto tree = search::DesignTree::open(ws, args.kernel);
  if (!tree) throw UsageError(tree.error().message);
  fmt::print("{}", args.format == "dot" ? search::render_dot(*tree) : search::render_text(*tree));
  return 0;
}
}  // namespace

void add_tree(CLI::App& app, int* exit_code) {
  auto args = std::make_shared<TreeArgs>();
  auto* cmd = app.add_subcommand("tree", "Show a kernel's Design Tree");
  cmd->add_option("kernel", args->kernel, "kernel name")->required();
  cmd->add_option("--format", args->format, "text (default) or dot (Graphviz)");
  cmd->add_option("--workspace", args->workspace,
                  "workspace directory (default: the nearest one up from here)");
  cmd->callback([args, exit_code] { run_verb(exit_code, [&] { return run_tree(*args); }); });
}

}  // namespace headway::cli
