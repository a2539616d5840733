#include <fmt/format.h>

#include <filesystem>
#include <nlohmann/json.hpp>

#include "cli/cli_support.h"
#include "cli/verbs.h"
#include "knowledge/citation_json.h"
#include "knowledge/citation_markup.h"
#include "knowledge/citations.h"
#include "knowledge/claim_judge.h"
#include "knowledge/corpus.h"
#include "knowledge/corpus_manifest.h"
#include "knowledge/docs_index.h"
#include "knowledge/summary_file.h"

namespace headway::cli {

namespace {

namespace fs = std::filesystem;

struct CheckCitationsArgs {
  std::string summary;
  std::string docs;
  std::string workspace;
  bool json = false;
};

struct DocsChoice {
  fs::path dir;
  std::string from;  // "--docs", "workspace", "summary folder"
  std::optional<knowledge::CorpusManifest> indexed;
};

DocsChoice choose_docs(const CheckCitationsArgs& args) {
  if (!args.docs.empty()) return {args.docs, "--docs", std::nullopt};
  std::optional<store::Workspace> ws;
  if (!args.workspace.empty()) {
    ws.emplace(open_workspace_or_throw(args.workspace));
  } else if (store::Workspace::locate(fs::current_path())) {
    ws.emplace(open_workspace_or_throw(""));
  }
  if (ws) {
    auto latest = knowledge::latest_indexing(*ws);
    if (!latest) fail_with(latest.error());
    if (latest.value()) {
      return {latest.value()->manifest.docs_root, "workspace", latest.value()->manifest};
    }
  }
  fs::path folder = fs::path(args.summary).parent_path();
  return {folder.empty() ? fs::path(".") : folder, "summary folder", std::nullopt};
}

int run_check_citations(const CheckCitationsArgs& args) {
  auto summary_text = knowledge::read_summary_file(args.summary);
  if (!summary_text) fail_with(summary_text.error());
  const std::string& summary = summary_text.value();
  const DocsChoice docs = choose_docs(args);
  auto corpus = knowledge::read_corpus(docs.dir);
  if (!corpus) {
    fail_with(Error{corpus.error().code,
                    docs.from == "workspace"
                        ? fmt::format("{} (the docs root of the workspace's current index)",
                                      corpus.error().message)
                        : corpus.error().message});
  }
  std::optional<knowledge::CorpusDiff> stale;
  if (docs.indexed) {
    auto d = knowledge::diff(*docs.indexed, knowledge::make_manifest(corpus.value(), ""));
    if (!d.empty()) stale = std::move(d);
  }
  const knowledge::SummaryMarkup markup = knowledge::parse_summary(summary);
  const knowledge::CitationReport report = knowledge::check_citations(markup, corpus.value());
  const knowledge::AgentPasses passes = knowledge::run_agent_passes(markup, corpus.value(), {});
  const std::string no_citations =
      fmt::format("{}: no citations found (a citation looks like [path:L12-L18])", args.summary);
  const int rc = report.all_supported() ? 0 : 1;

  if (args.json) {
    nlohmann::json out = {{"summary", args.summary},
                          {"docs", corpus.value().root.string()},
                          {"docs_from", docs.from},
                          {"count", report.citations.size()},
                          {"citations", knowledge::citations_json(report)},
                          {"totals", knowledge::totals_json(report)},
                          {"all_supported", report.all_supported()},
                          {"agent_passes", knowledge::agent_passes_json(passes)}};
    if (report.citations.empty()) out["message"] = no_citations;
    if (stale) out["docs_changed_since_index"] = knowledge::to_json(*stale);
    fmt::print("{}\n", out.dump(2));
    return rc;
  }
  fmt::print("docs: {} (from {})\n", corpus.value().root.string(), docs.from);
  if (stale) {
    fmt::print(
        "note: the docs changed since the workspace's last index ({} changed, {} added, {} "
        "removed{})\n",
        stale->changed.size(), stale->added.size(), stale->removed.size(),
        stale->reduced.empty() ? std::string()
                               : fmt::format(", {} reduced anew", stale->reduced.size()));
  }
  if (report.citations.empty()) {
    fmt::print("{}\n", no_citations);
    return rc;
  }
  for (const auto& c : report.citations) {
    if (c.verdict == knowledge::TextVerdict::kSupportedByText) continue;
    fmt::print("{}:{}: {} {}: {}\n", args.summary, c.line, c.cite, knowledge::to_string(c.verdict),
               c.why);
  }
  fmt::print("{}\n{}\n", report.totals_line(), passes.summary_line());
  return rc;
}

}  // namespace

void add_check_citations(CLI::App& app, int* exit_code) {
  auto args = std::make_shared<CheckCitationsArgs>();
  auto* cmd = app.add_subcommand("check-citations",
                                 "Check a cited summary's citations against the docs corpus");
  cmd->add_option("SUMMARY", args->summary, "the summary (Markdown)")->required();
  cmd->add_option("--docs", args->docs,
                  "docs folder (default: the workspace's indexed docs, else the summary's folder)");
  cmd->add_option("--workspace", args->workspace, "workspace directory (default: found from here)");
  cmd->add_flag("--json", args->json, "print one JSON object");
  cmd->callback(
      [args, exit_code] { run_verb(exit_code, [&] { return run_check_citations(*args); }); });
}

}  // namespace headway::cli
