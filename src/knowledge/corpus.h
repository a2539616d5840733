#pragma once
// A target's documentation as a corpus of numbered lines: the thing citations point into.
//
// read_corpus walks a docs folder recursively and keeps every file it can cite:
//   .md .markdown      Markdown, its text as written;
//   .txt .rst          plain text, as written;
//   .html .htm         HTML reduced to text (see html_text.h; lines are the reduced text's lines).
// Lines are numbered as text_lines.h says. Everything else is skipped and listed with its
// reason, never a crash: another extension, bytes that are not text (NUL bytes or invalid UTF-8),
// an unreadable file, a hidden file or folder (name starting with '.'; a hidden folder is listed
// once, not per file), a link to a directory (not followed), anything not a regular file.
#include <cstdint>
#include <filesystem>
#include <string>
#include <string_view>
#include <vector>

#include "common/result.h"

namespace headway::knowledge {

enum class DocKind { kMarkdown, kText, kHtml };
std::string_view to_string(DocKind kind);

struct CorpusFile {
  std::string path;    // relative to the docs folder, '/'-separated, e.g. "guide/memory.md"
  std::string sha256;  // of the file's bytes as read
  DocKind kind = DocKind::kMarkdown;
  std::vector<std::string> lines;  // lines[0] is line 1

  // The reduced text: lines joined, each ending in '\n'. This is what gets stored and cited.
  std::string text() const;
};

struct SkippedFile {
  std::string path;    // relative to the docs folder
  std::string reason;  // e.g. "unsupported extension '.png'", "binary (NUL byte at offset 4)"
};

struct Corpus {
  std::filesystem::path root;        // the docs folder, absolute and normalized
  std::vector<CorpusFile> files;     // sorted by path
  std::vector<SkippedFile> skipped;  // sorted by path

  // The file with this path relative to root ("./a.md" and "a/../a.md" name "a.md"); nullptr
  // when there is none.
  const CorpusFile* find(std::string_view path) const;
  // Why `path` is not in the corpus when it was skipped; nullptr otherwise.
  const SkippedFile* find_skipped(std::string_view path) const;
  int64_t line_count() const;
};

// The kind a file of this name is read as; false when its extension is not one the corpus reads
// (compared case-insensitively).
bool doc_kind_of(const std::filesystem::path& file, DocKind* kind);

// Reads one document's bytes into a CorpusFile (path given), or the reason it is skipped.
Result<CorpusFile> make_corpus_file(std::string path, DocKind kind, std::string_view bytes);

// Reads the one file docs_dir/relative as read_corpus would (its path is relative's normal form);
// an error with the reason it would be skipped (e.g. "unsupported extension '.png'"), or
// "no file a.md in /docs" when there is none, or "... is outside the docs folder" for a path
// that leaves it.
Result<CorpusFile> read_corpus_file(const std::filesystem::path& docs_dir,
                                    std::string_view relative);

// Reads the docs folder. An error (and nothing else) when docs_dir is missing or is not a
// directory, or cannot be listed; every problem with a single file is a skipped entry instead.
Result<Corpus> read_corpus(const std::filesystem::path& docs_dir);

}  // namespace headway::knowledge
