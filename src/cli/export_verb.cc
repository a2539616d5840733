#include <fmt/format.h>
#include <fmt/ranges.h>

#include <nlohmann/json.hpp>

#include "cli/cli_support.h"
#include "cli/status_figures.h"
#include "cli/verbs.h"
#include "knowledge/head_export.h"
#include "knowledge/workspace_target.h"
#include "trees/design_tree.h"

namespace headway::cli {

namespace {
struct ExportArgs {
  std::vector<std::string> kernels;  // empty: every kernel of the workspace
  std::string to = ".";
  std::string format;  // patch or files; empty: patch where the target has a repository
  bool check = false;
  bool json = false;
  std::string workspace;
};

// The heads to export, with the kernels whose head is their baseline in `nothing`.
std::vector<knowledge::HeadToExport> heads_to_export(store::Workspace& ws, KernelCatalog& catalog,
                                                     const std::vector<std::string>& names,
                                                     const nlohmann::json& figures,
                                                     const std::string& toolchain,
                                                     const std::string& recheck_workspace,
                                                     std::vector<std::string>* nothing) {
  std::vector<knowledge::HeadToExport> heads;
  for (const std::string& name : names) {
    auto tree = value_or_fail(trees::DesignTree::open(ws, name));
    if (tree.head().node_id == tree.root().id) {
      nothing->push_back(name);
      continue;
    }
    const nlohmann::json* k = nullptr;
    for (const auto& entry : figures["kernels"])
      if (entry["name"] == name) k = &entry;
    if (!k) throw UsageError(fmt::format("kernel {} has no figures in the workspace", name));
    const std::string evidence = head_evidence(
        *k, toolchain,
        fmt::format("headway export {} --check --workspace {}", name, recheck_workspace));
    const auto blank = evidence.find("\n\n");
    knowledge::HeadToExport head;
    head.kernel = &kernel_or_throw(catalog, name);
    head.node = tree.head().node_id;
    head.source = tree.source(tree.head().node_id).value_or("");
    head.subject = evidence.substr(0, blank);
    head.evidence = evidence.substr(blank + 2);
    heads.push_back(std::move(head));
  }
  return heads;
}

int run_export(const ExportArgs& args) {
  if (!args.format.empty() && args.format != "patch" && args.format != "files")
    throw UsageError(fmt::format("--format '{}': patch or files", args.format));
  store::Workspace ws = open_workspace_or_throw(args.workspace);
  const auto target = workspace_target_or_throw(ws);
  KernelCatalog catalog = kernel_catalog_or_throw(ws, target.get());
  const nlohmann::json figures = status_figures(ws, *target, catalog);
  std::vector<std::string> known;
  for (const auto& k : figures["kernels"]) known.push_back(k["name"].get<std::string>());
  for (const std::string& name : args.kernels) {
    if (std::find(known.begin(), known.end(), name) == known.end())
      throw UsageError(
          fmt::format("the workspace has no kernel '{}' (it has: {})", name,
                      known.empty() ? "none yet" : fmt::format("{}", fmt::join(known, ", "))));
  }
  const std::string toolchain = knowledge::toolchain_id_of(*target);
  std::vector<std::string> nothing;
  const auto heads = heads_to_export(ws, catalog, args.kernels.empty() ? known : args.kernels,
                                     figures, toolchain, ws.root().string(), &nothing);
  const std::optional<std::string> commit = knowledge::recorded_repository_commit(ws);
  const std::string format = !args.format.empty() ? args.format : commit ? "patch" : "files";
  if (format == "patch" && !commit && !heads.empty())
    throw UsageError(
        "--format patch needs the commit of your repository the workspace was made from, and "
        "this workspace recorded none (its target builds in no git repository of yours, or it "
        "was made before headway recorded one): export with --format files");
  // A head the current toolchain no longer builds or passes is not exported: all are checked
  // before anything is written.
  if (args.check) {
    for (const auto& head : heads) {
      const auto built = target->build(head.source, build_cache_dir());
      if (!built.built()) {
        print_error(fmt::format("{}'s head does not build under {}; nothing exported:\n{}",
                                head.kernel->name(), toolchain, built.diagnostics));
        return kExitNegative;
      }
      const auto checked = check_at_every_shape_set(*target, *head.kernel, built.artifact, {});
      if (!checked.correct()) {
        print_error(fmt::format("{}'s head fails its check under {}: {}; nothing exported",
                                head.kernel->name(), toolchain, checked.description));
        return kExitNegative;
      }
    }
  }
  nlohmann::json out = {{"format", format},
                        {"to", std::filesystem::absolute(args.to).lexically_normal().string()},
                        {"checked", args.check},
                        {"nothing_to_export", nothing},
                        {"kernels", nlohmann::json::array()}};
  for (const auto& head : heads) out["kernels"].push_back(head.kernel->name());
  std::vector<std::filesystem::path> written;
  std::vector<knowledge::ExportRecord> records;
  for (const auto& head : heads)
    records.push_back(
        {std::string(head.kernel->name()), head.node, "", "", head.subject, head.evidence});
  if (!heads.empty() && format == "files") {
    const auto files = value_or_fail(knowledge::export_files(*target, heads, args.to));
    written = files.written;
    for (size_t i = 0; i < records.size() && i < files.first_of_head.size(); ++i)
      records[i].path = files.first_of_head[i].string();
  } else if (!heads.empty()) {
    const auto series = value_or_fail(knowledge::export_patches(*target, heads, *commit, args.to));
    written = series.patches;
    for (size_t i = 0; i < records.size() && i < series.patches.size(); ++i) {
      records[i].path = series.patches[i].string();
      if (i < series.commits.size()) records[i].commit = series.commits[i];
    }
    out["base_commit"] = series.base_commit;
    out["repository_head"] = series.repository_head;
    out["not_applying"] = series.not_applying;
    out["commits"] = series.commits;
  }
  if (!records.empty()) knowledge::record_exports(ws, records);
  out["written"] = nlohmann::json::array();
  for (const auto& w : written) out["written"].push_back(w.string());
  if (args.json) {
    fmt::print("{}\n", out.dump(2));
    return kExitOk;
  }
  for (const auto& name : nothing)
    fmt::print("{}: its head is its baseline: nothing to export\n", name);
  for (const auto& w : written) fmt::print("{}\n", w.string());
  if (format == "patch" && !heads.empty()) {
    fmt::print("apply with: git am {}/*.patch (in your repository, at {})\n",
               out["to"].get<std::string>(), commit->substr(0, 12));
    if (!out["not_applying"].empty())
      fmt::print("your repository moved on to {}: these files do not apply there: {}\n",
                 out["repository_head"].get<std::string>().substr(0, 12),
                 fmt::join(out["not_applying"].get<std::vector<std::string>>(), ", "));
  }
  return kExitOk;
}
}  // namespace

void add_export(CLI::App& app, int* exit_code) {
  auto args = std::make_shared<ExportArgs>();
  auto* cmd = app.add_subcommand(
      "export", "Write each kernel's head where you work, with the evidence that made it head");
  cmd->add_option("kernels", args->kernels, "the kernels (default: every kernel of the workspace)");
  cmd->add_option("--to", args->to, "the folder written into (default: the current one)");
  cmd->add_option("--format", args->format,
                  "patch (a git format-patch series against the commit the workspace was made "
                  "from; the default where one was recorded) or files (each opening with the "
                  "evidence as a comment)");
  cmd->add_flag("--check", args->check,
                "build and check every head on the current toolchain first; a head that fails is "
                "named and nothing is exported (exit 1)");
  cmd->add_option("--workspace", args->workspace, "workspace directory (default: found from here)");
  cmd->add_flag("--json", args->json, "print one JSON object");
  cmd->callback([args, exit_code] { run_verb(exit_code, [&] { return run_export(*args); }); });
}

}  // namespace headway::cli
