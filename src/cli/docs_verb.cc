#include <fmt/format.h>

#include <nlohmann/json.hpp>

#include "cli/cli_support.h"
#include "cli/verbs.h"
#include "knowledge/corpus.h"
#include "knowledge/docs_index.h"

namespace headway::cli {

namespace {

struct DocsArgs {
  std::string dir;
  std::string workspace;
  bool json = false;
};

std::string short_hash(const std::string& hash) { return hash.substr(0, 12); }

void print_diff(const knowledge::CorpusDiff& diff) {
  fmt::print("{} changed, {} added, {} removed\n", diff.changed.size(), diff.added.size(),
             diff.removed.size());
  for (const auto& p : diff.changed) fmt::print("  changed {}\n", p);
  for (const auto& p : diff.added) fmt::print("  added   {}\n", p);
  for (const auto& p : diff.removed) fmt::print("  removed {}\n", p);
}

nlohmann::json skipped_json(const std::vector<knowledge::SkippedFile>& skipped) {
  nlohmann::json out = nlohmann::json::array();
  for (const auto& s : skipped) out.push_back({{"path", s.path}, {"reason", s.reason}});
  return out;
}

nlohmann::json hash_or_null(const std::string& hash) {
  return hash.empty() ? nlohmann::json(nullptr) : nlohmann::json(hash);
}

int run_docs_index(const DocsArgs& args) {
  store::Workspace ws = open_workspace_or_throw(args.workspace);
  auto corpus = knowledge::read_corpus(args.dir);
  if (!corpus) throw UsageError(corpus.error().message);
  auto indexing = knowledge::index_corpus(ws, corpus.value(), knowledge::utc_timestamp_now());
  if (!indexing) throw UsageError(indexing.error().message);
  const knowledge::Indexing& ix = indexing.value();
  if (args.json) {
    const nlohmann::json out = {{"docs_root", ix.manifest.docs_root},
                                {"manifest", ix.record.manifest},
                                {"previous", hash_or_null(ix.record.previous)},
                                {"indexed_at", ix.record.indexed_at},
                                {"files", ix.manifest.files.size()},
                                {"lines", ix.manifest.line_count()},
                                {"skipped", skipped_json(ix.manifest.skipped)},
                                {"first_index", !ix.previous.has_value()},
                                {"diff", knowledge::to_json(ix.diff)}};
    fmt::print("{}\n", out.dump(2));
    return 0;
  }
  fmt::print("indexed {}: {} files, {} lines, {} skipped\n", ix.manifest.docs_root,
             ix.manifest.files.size(), ix.manifest.line_count(), ix.manifest.skipped.size());
  for (const auto& s : ix.manifest.skipped) fmt::print("  skipped {}: {}\n", s.path, s.reason);
  if (!ix.previous) {
    fmt::print("manifest {} (first index of this workspace)\n", short_hash(ix.record.manifest));
    return 0;
  }
  fmt::print("manifest {} (previous {}); since the previous index: ",
             short_hash(ix.record.manifest), short_hash(ix.record.previous));
  print_diff(ix.diff);
  return 0;
}

int run_docs_diff(const DocsArgs& args) {
  store::Workspace ws = open_workspace_or_throw(args.workspace);
  auto latest = knowledge::latest_indexing(ws);
  if (!latest) throw UsageError(latest.error().message);
  if (!latest.value()) {
    throw UsageError(
        fmt::format("no docs indexed in {} (run `headway docs index DIR`)", ws.root().string()));
  }
  const knowledge::Indexing& ix = *latest.value();
  if (args.json) {
    const nlohmann::json out = {
        {"docs_root", ix.manifest.docs_root},
        {"manifest", ix.record.manifest},
        {"indexed_at", ix.record.indexed_at},
        {"previous", hash_or_null(ix.record.previous)},
        {"previous_indexed_at",
         ix.previous ? nlohmann::json(ix.previous->indexed_at) : nlohmann::json(nullptr)},
        {"diff", knowledge::to_json(ix.diff)}};
    fmt::print("{}\n", out.dump(2));
    return 0;
  }
  if (!ix.previous) {
    fmt::print("only one index so far: manifest {} of {} at {} ({} files)\n",
               short_hash(ix.record.manifest), ix.manifest.docs_root, ix.record.indexed_at,
               ix.manifest.files.size());
    return 0;
  }
  fmt::print("{}: manifest {} ({}) against {} ({}): ", ix.manifest.docs_root,
             short_hash(ix.record.manifest), ix.record.indexed_at, short_hash(ix.record.previous),
             ix.previous->indexed_at);
  print_diff(ix.diff);
  return 0;
}

}  // namespace

void add_docs(CLI::App& app, int* exit_code) {
  auto* docs = app.add_subcommand(
      "docs", "Index a target's documentation as a corpus with stable line numbers");
  docs->require_subcommand(1);

  auto index_args = std::make_shared<DocsArgs>();
  auto* index =
      docs->add_subcommand("index", "Store the docs folder's files and manifest in the workspace");
  index->add_option("DIR", index_args->dir, "the docs folder")->required();
  index->add_option("--workspace", index_args->workspace,
                    "workspace directory (default: found from here)");
  index->add_flag("--json", index_args->json, "print one JSON object");
  index->callback([index_args, exit_code] {
    run_verb(exit_code, [&] { return run_docs_index(*index_args); });
  });

  auto diff_args = std::make_shared<DocsArgs>();
  auto* diff = docs->add_subcommand(
      "diff", "Files added, removed and changed between the last two indexings");
  diff->add_option("--workspace", diff_args->workspace,
                   "workspace directory (default: found from here)");
  diff->add_flag("--json", diff_args->json, "print one JSON object");
  diff->callback(
      [diff_args, exit_code] { run_verb(exit_code, [&] { return run_docs_diff(*diff_args); }); });
}

}  // namespace headway::cli
