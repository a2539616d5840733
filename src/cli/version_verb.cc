#include <fmt/format.h>

#include <filesystem>
#include <memory>
#include <nlohmann/json.hpp>
#include <string>

#include "cli/cli_support.h"
#include "cli/verbs.h"
#include "common/build_info.h"
#include "store/headway_versions.h"
#include "store/schema.h"
#include "store/workspace.h"

namespace headway::cli {

namespace {
struct VersionArgs {
  std::string workspace;  // empty: the nearest one up from here, if any
  bool json = false;
};

nlohmann::json commit_or_null(std::string_view commit) {
  return commit.empty() ? nlohmann::json(nullptr) : nlohmann::json(std::string(commit));
}

// The workspace's record of the builds that created and opened it; null outside a workspace.
nlohmann::json workspace_json(const VersionArgs& args) {
  std::filesystem::path root = args.workspace;
  if (root.empty()) {
    std::error_code ec;
    const auto here = std::filesystem::current_path(ec);
    const auto found = ec ? std::nullopt : store::Workspace::locate(here);
    if (!found) return nullptr;
    root = *found;
  }
  auto ws = store::Workspace::open(root);
  if (!ws) fail_with(ws.error());
  nlohmann::json versions = nlohmann::json::array();
  for (const auto& v : store::headway_versions(ws->db())) {
    versions.push_back({{"version", v.version},
                        {"git_commit", commit_or_null(v.git_commit)},
                        {"compiler", v.compiler},
                        {"created_workspace", v.created_workspace},
                        {"first_at", v.first_at}});
  }
  return {{"root", ws->root().string()},
          {"schema_version", ws->schema_version()},
          {"versions", versions}};
}

int run_version(const VersionArgs& args) {
  const BuildInfo& info = build_info();
  const nlohmann::json out = {{"version", std::string(info.version)},
                              {"git_commit", commit_or_null(info.git_commit)},
                              {"compiler", std::string(info.compiler)},
                              {"schema_version", store::latest_schema_version()},
                              {"workspace", workspace_json(args)}};
  if (args.json) {
    fmt::print("{}\n", out.dump(2));
    return kExitOk;
  }
  fmt::print("{}\n", version_line());
  const auto& ws = out["workspace"];
  if (ws.is_null()) return kExitOk;
  fmt::print("workspace {} (schema {}):\n", ws["root"].get<std::string>(),
             ws["schema_version"].get<int64_t>());
  for (const auto& v : ws["versions"]) {
    const std::string commit = v["git_commit"].is_null() ? "" : v["git_commit"].get<std::string>();
    fmt::print("  {} {} since {}\n",
               v["created_workspace"].get<bool>() ? "created by" : "opened by ",
               version_label({v["version"].get<std::string>(), commit, ""}),
               v["first_at"].get<std::string>());
  }
  return kExitOk;
}
}  // namespace

std::string version_line() {
  const BuildInfo& info = build_info();
  const std::string commit = info.git_commit.empty()
                                 ? "commit unknown"
                                 : "commit " + std::string(info.git_commit.substr(0, 12));
  return fmt::format("headway {} ({}, {}, workspace schema {})", info.version, commit,
                     info.compiler, store::latest_schema_version());
}

void add_version(CLI::App& app, int* exit_code) {
  auto args = std::make_shared<VersionArgs>();
  auto* cmd = app.add_subcommand(
      "version",
      "Print the version, commit, compiler and schema, and the builds that used the workspace");
  cmd->add_option("--workspace", args->workspace,
                  "workspace directory (default: the nearest one up from here, if any)");
  cmd->add_flag("--json", args->json, "print one JSON object");
  cmd->callback([args, exit_code] { run_verb(exit_code, [&] { return run_version(*args); }); });
}

}  // namespace headway::cli
