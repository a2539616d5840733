#include <fmt/format.h>

#include <algorithm>
#include <filesystem>
#include <map>
#include <nlohmann/json.hpp>
#include <optional>
#include <tuple>

#include "cli/cli_support.h"
#include "cli/verbs.h"
#include "common/file_io.h"
#include "knowledge/citation_markup.h"
#include "knowledge/citation_moves.h"
#include "knowledge/corpus.h"
#include "knowledge/docs_index.h"
#include "knowledge/summary_file.h"
#include "knowledge/text_lines.h"
#include "store/sha256.h"

namespace headway::cli {

namespace {

namespace fs = std::filesystem;

struct DocsArgs {
  std::string dir;
  std::string workspace;
  std::string summary;  // docs diff --summary
  bool update = false;  // docs diff --update
  bool json = false;
};

struct ShowArgs {
  std::string path;
  std::string lines;
  std::string docs;
  std::string workspace;
  bool indexed = false;
  bool json = false;
};

std::string short_hash(const std::string& hash) { return hash.substr(0, 12); }

void print_diff(const knowledge::CorpusDiff& diff) {
  fmt::print("{} changed, {} added, {} removed", diff.changed.size(), diff.added.size(),
             diff.removed.size());
  if (!diff.reduced.empty())
    fmt::print(", {} reduced anew (same bytes, other lines)", diff.reduced.size());
  fmt::print("\n");
  for (const auto& p : diff.changed) fmt::print("  changed {}\n", p);
  for (const auto& p : diff.added) fmt::print("  added   {}\n", p);
  for (const auto& p : diff.removed) fmt::print("  removed {}\n", p);
  for (const auto& p : diff.reduced) fmt::print("  reduced {}\n", p);
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
  if (!corpus) fail_with(corpus.error());
  auto indexing = knowledge::index_corpus(ws, corpus.value(), knowledge::utc_timestamp_now());
  if (!indexing) fail_with(indexing.error());
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

std::string tracked_why(const knowledge::TrackedCitation& t) {
  using knowledge::CitedLinesMove;
  const std::string elsewhere =
      t.places > 1 ? fmt::format(
                         " (the cited lines are at {} places; this is the nearest to where "
                         "the text around them went)",
                         t.places)
                   : "";
  switch (t.move) {
    case CitedLinesMove::kMoved:
      return fmt::format("now {}{}", t.now, elsewhere);
    case CitedLinesMove::kKept:
      return "the file changed; the cited lines did not" + elsewhere;
    case CitedLinesMove::kChanged:
      return "the cited lines, as they were, are no longer in the file";
    case CitedLinesMove::kRemoved:
      return "the file is not in the new index";
    case CitedLinesMove::kUnresolved:
      return "it did not resolve in the previous index";
    case CitedLinesMove::kUnchanged:
      return "the file's text did not change";
  }
  return {};
}

nlohmann::json tracked_json(const std::vector<knowledge::TrackedCitation>& tracked) {
  nlohmann::json out = nlohmann::json::array();
  for (const auto& t : tracked) {
    nlohmann::json j = {{"line", t.line},
                        {"column", t.column},
                        {"cite", t.cite},
                        {"move", knowledge::to_string(t.move)},
                        {"why", tracked_why(t)}};
    if (t.move == knowledge::CitedLinesMove::kMoved || t.move == knowledge::CitedLinesMove::kKept) {
      j["first"] = t.first;
      j["last"] = t.last;
      j["places"] = t.places;
    }
    if (!t.now.empty()) j["now"] = t.now;
    out.push_back(std::move(j));
  }
  return out;
}

int run_docs_diff(const DocsArgs& args) {
  if (args.update && args.summary.empty()) throw UsageError("--update needs --summary FILE");
  std::optional<knowledge::SummaryMarkup> summary;
  std::string summary_text;
  if (!args.summary.empty()) {
    auto text = knowledge::read_summary_file(args.summary);
    if (!text) fail_with(text.error());
    summary_text = std::move(text).value();
    summary = knowledge::parse_summary(summary_text);
  }
  store::Workspace ws = open_workspace_or_throw(args.workspace);
  auto latest = knowledge::latest_indexing(ws);
  if (!latest) fail_with(latest.error());
  if (!latest.value()) {
    throw UsageError(
        fmt::format("no docs indexed in {} (run `headway docs index DIR`)", ws.root().string()));
  }
  const knowledge::Indexing& ix = *latest.value();
  std::vector<knowledge::TrackedCitation> tracked;
  if (summary && ix.previous) {
    const store::ArtifactStore& artifacts = ws.artifacts();
    tracked =
        knowledge::track_citations(*summary, *ix.previous, ix.manifest,
                                   [&](std::string_view hash) { return artifacts.get(hash); });
  }
  int64_t updated = 0;
  if (args.update && !tracked.empty()) {
    const std::string text = knowledge::apply_moves(summary_text, tracked, &updated);
    if (updated > 0) {
      try {
        write_file_atomically(args.summary, text);
      } catch (const std::runtime_error& e) {
        fail_with(environment_error(e.what()));
      }
    }
  }
  const auto moved = std::count_if(tracked.begin(), tracked.end(), [](const auto& t) {
    return t.move == knowledge::CitedLinesMove::kMoved;
  });
  const bool attention =
      moved > updated || std::any_of(tracked.begin(), tracked.end(), [](const auto& t) {
        return t.move == knowledge::CitedLinesMove::kChanged ||
               t.move == knowledge::CitedLinesMove::kRemoved;
      });
  const int rc = attention ? 1 : 0;
  if (args.json) {
    nlohmann::json out = {
        {"docs_root", ix.manifest.docs_root},
        {"manifest", ix.record.manifest},
        {"indexed_at", ix.record.indexed_at},
        {"previous", hash_or_null(ix.record.previous)},
        {"previous_indexed_at",
         ix.previous ? nlohmann::json(ix.previous->indexed_at) : nlohmann::json(nullptr)},
        {"diff", knowledge::to_json(ix.diff)}};
    if (summary) {
      out["summary"] = args.summary;
      out["citations"] = tracked_json(tracked);
      if (args.update) out["updated"] = updated;
    }
    fmt::print("{}\n", out.dump(2));
    return rc;
  }
  if (!ix.previous) {
    fmt::print("only one index so far: manifest {} of {} at {} ({} files)\n",
               short_hash(ix.record.manifest), ix.manifest.docs_root, ix.record.indexed_at,
               ix.manifest.files.size());
    return rc;
  }
  fmt::print("{}: manifest {} ({}) against {} ({}): ", ix.manifest.docs_root,
             short_hash(ix.record.manifest), ix.record.indexed_at, short_hash(ix.record.previous),
             ix.previous->indexed_at);
  print_diff(ix.diff);
  if (!summary) return rc;
  std::map<knowledge::CitedLinesMove, int> counts;
  for (const auto& t : tracked) {
    ++counts[t.move];
    if (t.move == knowledge::CitedLinesMove::kUnchanged) continue;
    fmt::print("{}:{}: {} {}: {}\n", args.summary, t.line, t.cite, knowledge::to_string(t.move),
               tracked_why(t));
  }
  std::string totals;
  for (const auto& [move, n] : counts)
    totals += fmt::format("{}{} {}", totals.empty() ? "" : ", ", n, knowledge::to_string(move));
  fmt::print("{}: {} citations{}{}\n", args.summary, tracked.size(), totals.empty() ? "" : ": ",
             totals);
  if (args.update) {
    fmt::print("{}: {} moved citation{} rewritten with their new lines\n", args.summary, updated,
               updated == 1 ? "" : "s");
  }
  return rc;
}

// "12", "12-18", "L12", "L12-L18" as a range; throws UsageError otherwise.
std::pair<int64_t, int64_t> parse_line_range(const std::string& text) {
  const auto bad = [&] {
    return UsageError(fmt::format("--lines {}: expected A-B or A (e.g. 12-18 or L12-L18)", text));
  };
  const auto number = [&](std::string part) -> int64_t {
    if (!part.empty() && part[0] == 'L') part.erase(0, 1);
    if (part.empty() || part.size() > 12 ||
        part.find_first_not_of("0123456789") != std::string::npos) {
      throw bad();
    }
    return std::stoll(part);
  };
  const size_t dash = text.find('-');
  if (dash == std::string::npos) {
    const int64_t n = number(text);
    return {n, n};
  }
  return {number(text.substr(0, dash)), number(text.substr(dash + 1))};
}

// A file's lines as docs show prints them, and where they came from.
struct ShownFile {
  std::string from;  // "--docs", "workspace", "current directory", "index"
  fs::path docs;
  std::string path;
  std::string kind;
  std::vector<std::string> lines;
  std::string note;  // for stderr; empty when there is nothing to say
};

// The workspace's current indexing, when a workspace is found and has been indexed.
std::optional<knowledge::Indexing> current_indexing(const std::string& workspace,
                                                    std::optional<store::Workspace>* ws) {
  if (!workspace.empty()) {
    ws->emplace(open_workspace_or_throw(workspace));
  } else if (store::Workspace::locate(fs::current_path())) {
    ws->emplace(open_workspace_or_throw(""));
  }
  if (!*ws) return std::nullopt;
  auto latest = knowledge::latest_indexing(**ws);
  if (!latest) fail_with(latest.error());
  if (!latest.value()) return std::nullopt;
  return std::move(*latest.value());
}

// The text the indexing stored for `path`.
ShownFile indexed_file(const store::Workspace& ws, const knowledge::Indexing& indexing,
                       const std::string& path) {
  const std::string key = fs::path(path).lexically_normal().generic_string();
  const auto& files = indexing.manifest.files;
  const auto entry =
      std::find_if(files.begin(), files.end(),
                   [&](const knowledge::CorpusManifestEntry& f) { return f.path == key; });
  if (entry == files.end()) {
    throw UsageError(
        fmt::format("{} is not in the workspace's index of {}", path, indexing.manifest.docs_root));
  }
  auto text = ws.artifacts().get(entry->artifact);
  if (!text) {
    throw UsageError(fmt::format("the indexed text of {} ({}) is not in the workspace's artifacts",
                                 key, entry->artifact));
  }
  return {"index",     indexing.manifest.docs_root,   key,
          entry->kind, knowledge::split_lines(*text), ""};
}

// The file as check-citations reads it now, from `docs` (or the indexing's docs root, or the
// current folder), with a note when the indexing stored other text for it.
ShownFile current_file(const std::string& docs, const std::optional<knowledge::Indexing>& indexing,
                       const std::string& path) {
  ShownFile shown;
  if (!docs.empty()) {
    shown.docs = docs;
    shown.from = "--docs";
  } else if (indexing) {
    shown.docs = indexing->manifest.docs_root;
    shown.from = "workspace";
  } else {
    shown.docs = ".";
    shown.from = "current directory";
  }
  auto file = knowledge::read_corpus_file(shown.docs, path);
  if (!file) {
    fail_with(Error{file.error().code,
                    shown.from == "workspace"
                        ? fmt::format("{} (the docs root of the workspace's current index)",
                                      file.error().message)
                        : file.error().message});
  }
  shown.path = file.value().path;
  shown.kind = std::string(knowledge::to_string(file.value().kind));
  shown.lines = std::move(file.value().lines);
  if (indexing) {
    const std::string artifact = store::sha256_hex(knowledge::join_lines(shown.lines));
    const auto& files = indexing->manifest.files;
    const bool same =
        std::any_of(files.begin(), files.end(), [&](const knowledge::CorpusManifestEntry& f) {
          return f.path == shown.path && f.artifact == artifact;
        });
    if (!same) {
      shown.note = fmt::format(
          "note: {} is not as the workspace's last index ({}) has it; `--indexed` shows that",
          shown.path, indexing->record.indexed_at);
    }
  }
  return shown;
}

int run_docs_show(const ShowArgs& args) {
  std::optional<store::Workspace> ws;
  std::optional<knowledge::Indexing> indexing;
  if (args.docs.empty() || args.indexed) indexing = current_indexing(args.workspace, &ws);
  if (args.indexed && !indexing) {
    throw UsageError("--indexed: no docs indexed in this workspace (run `headway docs index DIR`)");
  }
  const ShownFile shown = args.indexed ? indexed_file(*ws, *indexing, args.path)
                                       : current_file(args.docs, indexing, args.path);
  const auto total = static_cast<int64_t>(shown.lines.size());
  int64_t first = 1;
  int64_t last = total;
  if (!args.lines.empty()) {
    std::tie(first, last) = parse_line_range(args.lines);
    if (first < 1) throw UsageError("--lines: line numbers start at 1");
    if (last < first) {
      throw UsageError(fmt::format("--lines {}: the range ends before it starts", args.lines));
    }
    if (last > total) {
      throw UsageError(
          fmt::format("{} has {} lines; L{} is past its end", shown.path, total, last));
    }
  }
  if (!shown.note.empty()) fmt::print(stderr, "{}\n", shown.note);
  if (args.json) {
    nlohmann::json lines = nlohmann::json::array();
    for (int64_t l = first; l <= last; ++l)
      lines.push_back({{"line", l}, {"text", shown.lines[l - 1]}});
    const nlohmann::json out = {
        {"path", shown.path},  {"docs", fs::absolute(shown.docs).lexically_normal().string()},
        {"from", shown.from},  {"kind", shown.kind},
        {"line_count", total}, {"first", total == 0 ? 0 : first},
        {"last", last},        {"lines", lines}};
    fmt::print("{}\n", out.dump(2));
    return 0;
  }
  const size_t width = std::to_string(std::max<int64_t>(last, 1)).size();
  for (int64_t l = first; l <= last; ++l) fmt::print("{:>{}}  {}\n", l, width, shown.lines[l - 1]);
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
  diff->add_option(
      "--summary", diff_args->summary,
      "also follow this cited summary's citations from the previous index to this one");
  diff->add_flag("--update", diff_args->update,
                 "rewrite the summary's moved citations with their new lines (needs --summary)");
  diff->add_flag("--json", diff_args->json, "print one JSON object");
  diff->callback(
      [diff_args, exit_code] { run_verb(exit_code, [&] { return run_docs_diff(*diff_args); }); });

  auto show_args = std::make_shared<ShowArgs>();
  auto* show = docs->add_subcommand(
      "show", "A docs file's text with the line numbers citations count (HTML reduced)");
  show->add_option("PATH", show_args->path, "the file, relative to the docs folder")->required();
  show->add_option("--lines", show_args->lines, "only lines A-B (or A; L12-L18 works too)");
  show->add_option("--docs", show_args->docs,
                   "docs folder (default: the workspace's indexed docs, else the current folder)");
  show->add_flag("--indexed", show_args->indexed,
                 "the text the workspace's last index stored, not the file as it is now");
  show->add_option("--workspace", show_args->workspace,
                   "workspace directory (default: found from here)");
  show->add_flag("--json", show_args->json, "print one JSON object");
  show->callback(
      [show_args, exit_code] { run_verb(exit_code, [&] { return run_docs_show(*show_args); }); });
}

}  // namespace headway::cli
