#include <fmt/format.h>

#include <memory>
#include <nlohmann/json.hpp>
#include <string>

#include "agents/agent_ledger.h"
#include "cli/cli_support.h"
#include "cli/json_null.h"
#include "cli/verbs.h"
#include "store/workspace.h"
#include "trees/design_tree.h"
#include "trees/tree_render.h"

namespace headway::cli {

namespace {
struct TreeArgs {
  std::string kernel;
  std::string format = "text";
  std::string workspace;  // empty: search upward from the current directory
  bool json = false;
};

// The agent call that proposed a node, or null.
nlohmann::json agent_call_json(store::Workspace& ws, int64_t node) {
  const auto c = agents::node_agent_call(ws, node);
  if (!c) return nullptr;
  return {{"id", c->id},     {"provider", c->provider},  {"model", c->model},
          {"role", c->role}, {"prompt", c->prompt_hash}, {"response", or_null(c->response_hash)}};
}

nlohmann::json tree_json(store::Workspace& ws, const trees::DesignTree& tree) {
  const trees::KernelRecord record = tree.record();
  const trees::HeadRecord head = tree.head();
  nlohmann::json heads = nlohmann::json::array();
  for (const auto& h : tree.head_history()) {
    heads.push_back({{"node", h.node_id},
                     {"since", h.since},
                     {"median_ms", or_null(h.median_ms)},
                     {"test", or_null(h.test_id)}});
  }
  nlohmann::json nodes = nlohmann::json::array();
  for (const auto& n : tree.nodes()) {
    nodes.push_back({{"id", n.id},
                     {"parent", or_null(n.parent_id)},
                     {"kind", std::string(trees::to_string(n.kind))},
                     {"design", n.design},
                     {"params", n.params},
                     {"status", std::string(trees::to_string(n.status))},
                     {"reason", n.reason},
                     {"proposer", n.proposer},
                     {"agent_call", agent_call_json(ws, n.id)},
                     {"source_hash", n.source_hash},
                     {"head", n.id == head.node_id},
                     {"created_at", n.created_at},
                     {"updated_at", n.updated_at}});
  }
  return {{"kernel", record.name},
          {"target", record.target},
          {"floor_ms", or_null(record.floor_ms)},
          {"baseline_ms", or_null(record.baseline_ms)},
          {"head", head.node_id},
          {"heads", heads},
          {"nodes", nodes}};
}

int run_tree(const TreeArgs& args) {
  if (args.json && args.format != "text") throw UsageError("--json and --format are exclusive");
  if (args.format != "text" && args.format != "dot") {
    throw UsageError(fmt::format("unknown format '{}' (text or dot)", args.format));
  }
  store::Workspace ws = open_workspace_or_throw(args.workspace);
  auto tree = trees::DesignTree::open(ws, args.kernel);
  if (!tree) fail_with(tree.error());
  if (args.json) {
    fmt::print("{}\n", tree_json(ws, *tree).dump(2));
    return kExitOk;
  }
  // Nodes an agent proposed say which agent, role and call (`headway agents usage` sums them).
  const auto by_agent = [&ws](const trees::Node& n) -> std::string {
    const auto call = agents::node_agent_call(ws, n.id);
    return call ? "by " + call->describe() : "";
  };
  fmt::print("{}",
             args.format == "dot" ? trees::render_dot(*tree) : trees::render_text(*tree, by_agent));
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
  cmd->add_flag("--json", args->json,
                "print one JSON object: the kernel, its head history and every node");
  cmd->callback([args, exit_code] { run_verb(exit_code, [&] { return run_tree(*args); }); });
}

}  // namespace headway::cli
