#pragma once
// Where a summary's cited lines went between two indexings of a corpus (docs_index.h): after the
// docs change, or after headway reduces HTML differently, the text a citation pointed at may sit
// at other line numbers. For every citation of the summary:
//   unchanged  the file's reduced text is the same in both indexings (its citation still holds);
//   moved      the text changed and the cited lines, exactly as they were, are now at other lines
//              (or at several places, the one nearest to where the text around them went: see
//              below); `now` is the citation rewritten with the new lines;
//   kept       the text changed but the cited lines are still the same text at the same numbers;
//   changed    the cited lines, exactly as they were, are nowhere in the new text;
//   removed    the file is not in the new indexing;
//   unresolved the citation did not resolve in the previous indexing (no such file there, or
//              lines past its end), so there is nothing to follow.
// Where the cited lines occur more than once in the new text, the place chosen is the one nearest
// to where the text around them went: a line that occurs exactly once in each text anchors the
// two together, and the nearest such anchor at or above the citation (else below it) says by how
// many lines that part of the file moved. `places` counts the occurrences.
#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "knowledge/citation_markup.h"
#include "knowledge/corpus_manifest.h"

namespace headway::knowledge {

enum class CitedLinesMove { kUnchanged, kMoved, kKept, kChanged, kRemoved, kUnresolved };
// "unchanged", "moved", "kept", "changed", "removed", "unresolved".
std::string_view to_string(CitedLinesMove move);

struct TrackedCitation {
  int64_t line = 0;  // the summary line and column of the citation
  int64_t column = 0;
  std::string cite;  // as written
  CitedLinesMove move = CitedLinesMove::kUnchanged;
  int64_t first = 0;  // for moved and kept: the cited lines in the new text
  int64_t last = 0;
  int64_t places = 0;  // for moved and kept: where the cited lines occur in the new text
  std::string now;     // for moved: the citation with the new line numbers (quote kept)
};

// The reduced text stored under an artifact hash; nullopt when there is none.
using ArtifactText = std::function<std::optional<std::string>(std::string_view hash)>;

// Follows every citation of the summary from `old` to `now`, in summary order. A file whose
// artifact cannot be read is treated as removed (old side: unresolved).
std::vector<TrackedCitation> track_citations(const SummaryMarkup& summary,
                                             const CorpusManifest& old, const CorpusManifest& now,
                                             const ArtifactText& text_of);

// Where the block old_lines[first-1..last-1] went in new_lines (see above): the new first line,
// or nullopt when the block is nowhere; *places gets the number of occurrences. Requires
// 1 <= first <= last <= old_lines.size().
std::optional<int64_t> find_moved_block(const std::vector<std::string>& old_lines,
                                        const std::vector<std::string>& new_lines, int64_t first,
                                        int64_t last, int64_t* places);

// The citation written with other line numbers: [path:L3] or [path:L3-L5], with its quote.
std::string rewrite_citation(const Citation& citation, int64_t first, int64_t last);

// The summary's text with every moved citation replaced by its `now`, where it is written (its
// line, and on that line the occurrence of its text nearest to its column); everything else
// byte for byte. *updated gets the number replaced.
std::string apply_moves(std::string_view summary, const std::vector<TrackedCitation>& tracked,
                        int64_t* updated);

}  // namespace headway::knowledge
