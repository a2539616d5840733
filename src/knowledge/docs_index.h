#pragma once
// A docs corpus stored in a workspace, without touching the database:
// - every file's reduced text is an artifact (store/artifacts.h);
// - each indexing's manifest (manifest.h) is an artifact too;
// - W/.headway/knowledge/docs-manifests.jsonl is an append-only log with one line per indexing,
//     {"manifest": H, "previous": H or null, "indexed_at": T, "docs_root": D}
//   whose newest line names the current manifest. A line is written whole with one write() and
//   fsynced before index_corpus returns; a torn last line left by a crash has no '\n', is never
//   current, and is cut off by the next indexing. Indexings of one workspace are serialized with
//   an exclusive lock on the log file.
#include <filesystem>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "common/result.h"
#include "knowledge/corpus.h"
#include "knowledge/corpus_manifest.h"
#include "store/artifacts.h"
#include "store/workspace.h"

namespace headway::knowledge {

struct IndexingRecord {
  std::string manifest;  // artifact hash of the manifest JSON
  std::string previous;  // the manifest current before this indexing; empty for the first
  std::string indexed_at;
  std::string docs_root;
};

std::filesystem::path manifest_log_path(const std::filesystem::path& workspace_root);

// The records of a log's text: its complete lines (ending in '\n'; text after the last '\n' is
// a torn line and ignored), blank lines skipped. An error naming path and the line when a
// complete line is not a JSON object with a "manifest" SHA-256 hash.
Result<std::vector<IndexingRecord>> parse_manifest_log(std::string_view text,
                                                       const std::filesystem::path& path);

// The log's complete lines, oldest first; empty when nothing was ever indexed. An error naming
// the line when a complete line is not a record.
Result<std::vector<IndexingRecord>> read_manifest_log(const std::filesystem::path& workspace_root);

// The manifest stored under hash; an error when there is none or it does not parse.
Result<CorpusManifest> load_manifest(const store::ArtifactStore& artifacts, std::string_view hash);

struct Indexing {
  IndexingRecord record;
  CorpusManifest manifest;
  std::optional<CorpusManifest> previous;  // nullopt for the first indexing
  CorpusDiff diff;                         // against previous (everything added for the first)
};

// Stores the corpus (texts and manifest) and appends its record to the log. The error of the
// first write that fails; the log is then unchanged.
Result<Indexing> index_corpus(const store::Workspace& workspace, const Corpus& corpus,
                              std::string indexed_at);

// The newest indexing compared with the one before it (its `previous`); nullopt when the
// workspace was never indexed.
Result<std::optional<Indexing>> latest_indexing(const store::Workspace& workspace);

// Now in UTC, as "YYYY-MM-DDTHH:MM:SSZ".
std::string utc_timestamp_now();

}  // namespace headway::knowledge
