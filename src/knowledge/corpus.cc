#include "knowledge/corpus.h"

#include <fmt/format.h>

#include <algorithm>
#include <cerrno>
#include <cstring>

#include "common/file_io.h"
#include "knowledge/html_text.h"
#include "knowledge/text_lines.h"
#include "store/sha256.h"

namespace headway::knowledge {

namespace fs = std::filesystem;

namespace {

constexpr std::uintmax_t kMaxFileBytes = 64u << 20;

std::string lower_ascii(std::string text) {
  for (char& c : text) {
    if (c >= 'A' && c <= 'Z') c = static_cast<char>(c - 'A' + 'a');
  }
  return text;
}

// "a/../b.md" -> "b.md"; empty when the path is absolute or leaves the folder.
std::string normalize_relative(std::string_view path) {
  const fs::path p = fs::path(path).lexically_normal();
  if (p.empty() || p.is_absolute()) return {};
  std::string text = p.generic_string();
  if (text == ".." || text.starts_with("../")) return {};
  return text;
}

// One regular file of the docs folder read as a corpus file, or why it is skipped.
Result<CorpusFile> read_regular_file(const fs::path& absolute, const fs::path& relative) {
  DocKind kind{};
  if (!doc_kind_of(relative, &kind)) {
    const std::string ext = relative.extension().string();
    return invalid_input(ext.empty() ? "no extension"
                                     : fmt::format("unsupported extension '{}'", ext));
  }
  std::error_code ec;
  const std::uintmax_t size = fs::file_size(absolute, ec);
  if (ec) return invalid_input(fmt::format("cannot read: {}", ec.message()));
  if (size > kMaxFileBytes) return invalid_input(fmt::format("too large ({} bytes)", size));
  const std::optional<std::string> bytes = read_file(absolute);
  if (!bytes) return invalid_input(fmt::format("cannot read: {}", std::strerror(errno)));
  return make_corpus_file(relative.generic_string(), kind, *bytes);
}

struct Walker {
  Corpus* corpus;

  void skip(const fs::path& relative, std::string reason) {
    corpus->skipped.push_back({relative.generic_string(), std::move(reason)});
  }

  void read_file(const fs::path& absolute, const fs::path& relative) {
    auto file = read_regular_file(absolute, relative);
    if (!file) return skip(relative, file.error().message);
    corpus->files.push_back(std::move(file).value());
  }

  Status walk(const fs::path& dir, const fs::path& relative) {
    std::error_code ec;
    fs::directory_iterator it(dir, ec);
    if (ec) return invalid_input(fmt::format("cannot list {}: {}", dir.string(), ec.message()));
    std::vector<fs::directory_entry> entries;
    for (; it != fs::directory_iterator(); it.increment(ec)) {
      if (ec) break;
      entries.push_back(*it);
    }
    if (ec) return invalid_input(fmt::format("cannot list {}: {}", dir.string(), ec.message()));
    for (const auto& entry : entries) {
      const fs::path name = entry.path().filename();
      const fs::path rel = relative.empty() ? name : relative / name;
      const bool hidden = name.string().starts_with(".");
      const bool is_link = entry.is_symlink(ec);
      const fs::file_status status = entry.status(ec);
      if (ec && is_link) {
        skip(rel, "broken link");
      } else if (ec) {
        skip(rel, fmt::format("cannot read: {}", ec.message()));
      } else if (fs::is_directory(status)) {
        if (hidden) {
          skip(rel, "hidden folder");
        } else if (is_link) {
          skip(rel, "link to a folder (not followed)");
        } else if (auto listed = walk(entry.path(), rel); !listed) {
          skip(rel, listed.error().message);
        }
      } else if (!fs::is_regular_file(status)) {
        skip(rel, "not a regular file");
      } else if (hidden) {
        skip(rel, "hidden file");
      } else {
        read_file(entry.path(), rel);
      }
      ec.clear();
    }
    return {};
  }
};

}  // namespace

std::string_view to_string(DocKind kind) {
  switch (kind) {
    case DocKind::kMarkdown:
      return "markdown";
    case DocKind::kText:
      return "text";
    case DocKind::kHtml:
      return "html";
  }
  return "unknown";
}

std::string CorpusFile::text() const { return join_lines(lines); }

const CorpusFile* Corpus::find(std::string_view path) const {
  const std::string key = normalize_relative(path);
  if (key.empty()) return nullptr;
  const auto it =
      std::lower_bound(files.begin(), files.end(), key,
                       [](const CorpusFile& f, const std::string& k) { return f.path < k; });
  return it != files.end() && it->path == key ? &*it : nullptr;
}

const SkippedFile* Corpus::find_skipped(std::string_view path) const {
  const std::string key = normalize_relative(path);
  if (key.empty()) return nullptr;
  for (const auto& s : skipped) {
    if (s.path == key) return &s;
  }
  return nullptr;
}

int64_t Corpus::line_count() const {
  int64_t total = 0;
  for (const auto& f : files) total += static_cast<int64_t>(f.lines.size());
  return total;
}

bool doc_kind_of(const fs::path& file, DocKind* kind) {
  const std::string ext = lower_ascii(file.extension().string());
  if (ext == ".md" || ext == ".markdown") {
    *kind = DocKind::kMarkdown;
  } else if (ext == ".txt" || ext == ".rst") {
    *kind = DocKind::kText;
  } else if (ext == ".html" || ext == ".htm") {
    *kind = DocKind::kHtml;
  } else {
    return false;
  }
  return true;
}

Result<CorpusFile> make_corpus_file(std::string path, DocKind kind, std::string_view bytes) {
  if (auto reason = not_text_reason(bytes)) return invalid_input(*reason);
  CorpusFile file;
  file.path = std::move(path);
  file.sha256 = store::sha256_hex(bytes);
  file.kind = kind;
  file.lines = kind == DocKind::kHtml ? split_lines(reduce_html(bytes)) : split_lines(bytes);
  return file;
}

Result<CorpusFile> read_corpus_file(const fs::path& docs_dir, std::string_view relative) {
  const std::string key = normalize_relative(relative);
  if (key.empty()) {
    return invalid_input(
        fmt::format("{} is outside the docs folder {}", relative, docs_dir.string()));
  }
  std::error_code ec;
  if (!fs::is_directory(docs_dir, ec)) {
    return not_found(fmt::format("docs folder {} does not exist", docs_dir.string()));
  }
  const fs::path rel(key);
  for (const auto& part : rel) {
    if (part.string().starts_with(".")) {
      return invalid_input(fmt::format("{} is not in the corpus: hidden", key));
    }
  }
  const fs::path absolute = docs_dir / rel;
  const fs::file_status link = fs::symlink_status(absolute, ec);
  if (!fs::exists(link)) return not_found(fmt::format("no file {} in {}", key, docs_dir.string()));
  const fs::file_status status = fs::status(absolute, ec);
  if (ec) return invalid_input(fmt::format("{} is not in the corpus: broken link", key));
  if (!fs::is_regular_file(status)) {
    return invalid_input(fmt::format("{} is not in the corpus: not a regular file", key));
  }
  auto file = read_regular_file(absolute, rel);
  if (!file)
    return Error{file.error().code,
                 fmt::format("{} is not in the corpus: {}", key, file.error().message)};
  return file;
}

Result<Corpus> read_corpus(const fs::path& docs_dir) {
  std::error_code ec;
  const fs::file_status status = fs::status(docs_dir, ec);
  if (!fs::exists(status))
    return not_found(fmt::format("docs folder {} does not exist", docs_dir.string()));
  if (!fs::is_directory(status)) {
    return invalid_input(fmt::format("docs folder {} is not a directory", docs_dir.string()));
  }
  Corpus corpus;
  corpus.root = fs::weakly_canonical(fs::absolute(docs_dir, ec), ec);
  if (ec) corpus.root = fs::absolute(docs_dir).lexically_normal();
  Walker walker{&corpus};
  if (auto listed = walker.walk(corpus.root, {}); !listed) return listed.error();
  std::sort(corpus.files.begin(), corpus.files.end(),
            [](const CorpusFile& a, const CorpusFile& b) { return a.path < b.path; });
  std::sort(corpus.skipped.begin(), corpus.skipped.end(),
            [](const SkippedFile& a, const SkippedFile& b) { return a.path < b.path; });
  return corpus;
}

}  // namespace headway::knowledge
