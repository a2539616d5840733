#pragma once
// A corpus manifest: what one indexing of a docs folder saw, file by file, and the difference
// between two indexings.
//
// JSON form (stored as an artifact by docs_index.h):
//   {"docs_root": "/abs/docs", "indexed_at": "2025-01-31T12:00:00Z",
//    "files":   [{"path": "a.md", "kind": "markdown", "sha256": H, "artifact": H, "lines": 12}],
//    "skipped": [{"path": "logo.png", "reason": "unsupported extension '.png'"}]}
// "sha256" hashes the file's bytes; "artifact" hashes its reduced text (what is cited).
#include <cstdint>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "common/result.h"
#include "knowledge/corpus.h"

namespace headway::knowledge {

struct CorpusManifestEntry {
  std::string path;
  std::string kind;
  std::string sha256;
  std::string artifact;
  int64_t lines = 0;
};

struct CorpusManifest {
  std::string docs_root;
  std::string indexed_at;
  std::vector<CorpusManifestEntry> files;  // sorted by path
  std::vector<SkippedFile> skipped;

  int64_t line_count() const;
};

// The manifest of a corpus read at indexed_at; artifact = sha256 of each file's text().
CorpusManifest make_manifest(const Corpus& corpus, std::string indexed_at);

nlohmann::json to_json(const CorpusManifest& manifest);
// An error naming the first missing or mistyped field.
Result<CorpusManifest> manifest_from_json(const nlohmann::json& json);

// Files by path: in `now` only (added), in `old` only (removed), in both with different bytes
// (changed), in both with the same bytes but a different reduced text (reduced: headway reduces
// the file differently, e.g. an HTML page after a change to the HTML reduction, so its cited line
// numbers may have moved). Each list sorted. A file whose bytes and text are unchanged is in none
// of them.
struct CorpusDiff {
  std::vector<std::string> added;
  std::vector<std::string> removed;
  std::vector<std::string> changed;
  std::vector<std::string> reduced;

  bool empty() const {
    return added.empty() && removed.empty() && changed.empty() && reduced.empty();
  }
};
CorpusDiff diff(const CorpusManifest& old, const CorpusManifest& now);

nlohmann::json to_json(const CorpusDiff& d);

}  // namespace headway::knowledge
