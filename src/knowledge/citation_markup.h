#pragma once
// The citations of a Markdown summary and the claims they support.
//
// A citation is written at the end of the claim it supports:
//   [path:L12]            one line
//   [path:L12-L18]        lines 12 to 18
//   [path:L12-L18 "a quoted phrase"]   ... which must contain that phrase
// path is relative to the docs folder. Markup counts as a citation attempt when '[' is followed by
// a path (no spaces, with a '.' or '/') and ':', and either the path ends in an extension the
// corpus reads (.md .markdown .txt .rst .html .htm) or ':' is followed by 'L'. An attempt that does
// not finish as one of the forms above is malformed (an unclosed '[path:L', 'L' without digits,
// a quote without its closing '"', an empty quote, anything else before ']'); it is recorded with
// its line and the scan goes on after it. A citation never spans lines. Citations in fenced code
// blocks, in code spans and after a backslash ("\[") are not citations.
//
// A claim is the text a group of citations ends: citations separated only by spaces, ',' or ';'
// form one group. Its text runs from the end of the previous group (or malformed attempt) in the
// same block, or from the start of the block, to the group. Blocks are list items (with their
// continuation lines), paragraphs, headings and table rows. In a paragraph the claim is only the
// last sentence of that text (a sentence ends at '.', '!' or '?' followed by a space); a list
// item's claim is all of it. List markers, heading '#'s and '>' quote markers are not claim text.
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace headway::knowledge {

struct Citation {
  int64_t line = 0;    // the summary line of its '[' (1-based, as text_lines.h numbers lines)
  int64_t column = 0;  // the 1-based byte column of its '['
  std::string text;    // as written, e.g. [a.md:L3-L4 "tile"]
  std::string path;
  int64_t first = 0;  // L12 of L12-L18
  int64_t last = 0;   // L18 of L12-L18; first for [path:L12]
  std::optional<std::string> quote;
};

struct MalformedCitation {
  int64_t line = 0;
  int64_t column = 0;
  std::string text;  // the attempt as written, up to its ']' or the end of the line
  std::string why;   // e.g. "'L' without a line number"
};

struct Claim {
  int64_t line = 0;  // where the claim text starts (its first citation's line when it has none)
  std::string text;  // whitespace-collapsed; may be empty ("[a.md:L3]" alone on a line)
  std::vector<Citation> citations;  // at least one
};

struct SummaryMarkup {
  std::vector<Claim> claims;                 // in summary order
  std::vector<MalformedCitation> malformed;  // in summary order
  size_t citation_count() const;
};

SummaryMarkup parse_summary(std::string_view markdown);

}  // namespace headway::knowledge
