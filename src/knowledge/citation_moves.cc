#include "knowledge/citation_moves.h"

#include <fmt/format.h>

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <map>
#include <stdexcept>
#include <unordered_map>
#include <utility>

#include "knowledge/text_lines.h"

namespace headway::knowledge {

namespace {

// Pairs (old index, new index) of the lines that occur exactly once in each text, by old index.
std::vector<std::pair<int64_t, int64_t>> unique_anchors(const std::vector<std::string>& old_lines,
                                                        const std::vector<std::string>& new_lines) {
  std::unordered_map<std::string_view, std::pair<int64_t, int64_t>> old_seen;  // count, index
  for (size_t i = 0; i < old_lines.size(); ++i) {
    auto& [count, index] = old_seen[old_lines[i]];
    ++count;
    index = static_cast<int64_t>(i);
  }
  std::unordered_map<std::string_view, std::pair<int64_t, int64_t>> new_seen;
  for (size_t i = 0; i < new_lines.size(); ++i) {
    auto& [count, index] = new_seen[new_lines[i]];
    ++count;
    index = static_cast<int64_t>(i);
  }
  std::vector<std::pair<int64_t, int64_t>> anchors;
  for (const auto& [line, seen] : old_seen) {
    if (seen.first != 1 || line.empty()) continue;
    const auto it = new_seen.find(line);
    if (it != new_seen.end() && it->second.first == 1)
      anchors.emplace_back(seen.second, it->second.second);
  }
  std::sort(anchors.begin(), anchors.end());
  return anchors;
}

struct Lines {
  bool found = false;
  std::vector<std::string> lines;
};

}  // namespace

std::string_view to_string(CitedLinesMove move) {
  switch (move) {
    case CitedLinesMove::kUnchanged:
      return "unchanged";
    case CitedLinesMove::kMoved:
      return "moved";
    case CitedLinesMove::kKept:
      return "kept";
    case CitedLinesMove::kChanged:
      return "changed";
    case CitedLinesMove::kRemoved:
      return "removed";
    case CitedLinesMove::kUnresolved:
      return "unresolved";
  }
  return "unknown";
}

std::optional<int64_t> find_moved_block(const std::vector<std::string>& old_lines,
                                        const std::vector<std::string>& new_lines, int64_t first,
                                        int64_t last, int64_t* places) {
  if (first < 1 || last < first || last > static_cast<int64_t>(old_lines.size())) {
    throw std::logic_error("find_moved_block: the range is not in the old text");
  }
  const int64_t span = last - first + 1;
  const auto n = static_cast<int64_t>(new_lines.size());
  std::vector<int64_t> starts;  // 1-based
  for (int64_t p = 0; p + span <= n; ++p) {
    bool same = true;
    for (int64_t k = 0; k < span && same; ++k) same = new_lines[p + k] == old_lines[first - 1 + k];
    if (same) starts.push_back(p + 1);
  }
  *places = static_cast<int64_t>(starts.size());
  if (starts.empty()) return std::nullopt;
  if (starts.size() == 1) return starts.front();
  const auto anchors = unique_anchors(old_lines, new_lines);
  int64_t shift = 0;
  if (!anchors.empty()) {
    // The nearest anchor at or above the cited block, else the first one below it.
    auto it = std::upper_bound(anchors.begin(), anchors.end(),
                               std::pair<int64_t, int64_t>(first - 1, INT64_MAX));
    if (it != anchors.begin()) --it;
    shift = it->second - it->first;
  }
  const int64_t expected = first + shift;
  return *std::min_element(starts.begin(), starts.end(), [&](int64_t a, int64_t b) {
    const int64_t da = std::abs(a - expected);
    const int64_t db = std::abs(b - expected);
    return da != db ? da < db : a < b;
  });
}

std::string rewrite_citation(const Citation& citation, int64_t first, int64_t last) {
  std::string out = first == last ? fmt::format("[{}:L{}", citation.path, first)
                                  : fmt::format("[{}:L{}-L{}", citation.path, first, last);
  if (citation.quote) out += fmt::format(" \"{}\"", *citation.quote);
  return out + "]";
}

std::string apply_moves(std::string_view summary, const std::vector<TrackedCitation>& tracked,
                        int64_t* updated) {
  std::vector<size_t> line_starts = {0};
  for (size_t i = 0; i < summary.size(); ++i) {
    if (summary[i] == '\n') line_starts.push_back(i + 1);
  }
  struct Edit {
    size_t at;
    size_t length;
    std::string text;
  };
  std::vector<Edit> edits;
  for (const TrackedCitation& t : tracked) {
    if (t.move != CitedLinesMove::kMoved || t.line < 1 ||
        t.line > static_cast<int64_t>(line_starts.size())) {
      continue;
    }
    const size_t begin = line_starts[t.line - 1];
    const size_t end =
        static_cast<size_t>(t.line) < line_starts.size() ? line_starts[t.line] : summary.size();
    const std::string_view line = summary.substr(begin, end - begin);
    const auto column = static_cast<size_t>(std::max<int64_t>(t.column - 1, 0));
    size_t best = std::string_view::npos;
    for (size_t at = line.find(t.cite); at != std::string_view::npos;
         at = line.find(t.cite, at + 1)) {
      const auto distance = [&](size_t p) { return p > column ? p - column : column - p; };
      if (best == std::string_view::npos || distance(at) < distance(best)) best = at;
    }
    if (best != std::string_view::npos) edits.push_back({begin + best, t.cite.size(), t.now});
  }
  std::sort(edits.begin(), edits.end(), [](const Edit& a, const Edit& b) { return a.at < b.at; });
  std::string out;
  size_t from = 0;
  *updated = 0;
  for (const Edit& e : edits) {
    if (e.at < from) continue;  // overlaps the previous edit: not a distinct citation
    out.append(summary.substr(from, e.at - from));
    out += e.text;
    from = e.at + e.length;
    ++*updated;
  }
  out.append(summary.substr(from));
  return out;
}

std::vector<TrackedCitation> track_citations(const SummaryMarkup& summary,
                                             const CorpusManifest& old, const CorpusManifest& now,
                                             const ArtifactText& text_of) {
  std::map<std::string, const CorpusManifestEntry*> old_files;
  std::map<std::string, const CorpusManifestEntry*> new_files;
  for (const auto& f : old.files) old_files[f.path] = &f;
  for (const auto& f : now.files) new_files[f.path] = &f;
  std::map<std::string, Lines> texts;  // by artifact hash
  const auto lines_of = [&](const std::string& hash) -> const Lines& {
    auto it = texts.find(hash);
    if (it == texts.end()) {
      Lines lines;
      if (auto text = text_of(hash)) {
        lines.found = true;
        lines.lines = split_lines(*text);
      }
      it = texts.emplace(hash, std::move(lines)).first;
    }
    return it->second;
  };

  std::vector<TrackedCitation> out;
  for (const Claim& claim : summary.claims) {
    for (const Citation& c : claim.citations) {
      TrackedCitation t;
      t.line = c.line;
      t.column = c.column;
      t.cite = c.text;
      // Paths are compared as the corpus names them ("./a.md" is "a.md").
      const std::string path = std::filesystem::path(c.path).lexically_normal().generic_string();
      const auto was = old_files.find(path);
      const auto is = new_files.find(path);
      const Lines* old_lines = was == old_files.end() ? nullptr : &lines_of(was->second->artifact);
      if (old_lines == nullptr || !old_lines->found || c.first < 1 || c.last < c.first ||
          c.last > static_cast<int64_t>(old_lines->lines.size())) {
        t.move = CitedLinesMove::kUnresolved;
      } else if (is == new_files.end() || !lines_of(is->second->artifact).found) {
        t.move = CitedLinesMove::kRemoved;
      } else if (is->second->artifact == was->second->artifact) {
        t.move = CitedLinesMove::kUnchanged;
      } else {
        const auto& new_lines = lines_of(is->second->artifact).lines;
        const auto start =
            find_moved_block(old_lines->lines, new_lines, c.first, c.last, &t.places);
        if (!start) {
          t.move = CitedLinesMove::kChanged;
        } else {
          t.first = *start;
          t.last = *start + (c.last - c.first);
          t.move = t.first == c.first ? CitedLinesMove::kKept : CitedLinesMove::kMoved;
          if (t.move == CitedLinesMove::kMoved) t.now = rewrite_citation(c, t.first, t.last);
        }
      }
      out.push_back(std::move(t));
    }
  }
  std::stable_sort(out.begin(), out.end(), [](const TrackedCitation& a, const TrackedCitation& b) {
    return a.line != b.line ? a.line < b.line : a.column < b.column;
  });
  return out;
}

}  // namespace headway::knowledge
