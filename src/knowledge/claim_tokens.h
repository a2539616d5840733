#pragma once
// The checkable facts in a claim: its numbers and its identifiers in backticks.
//
// A number starts with a digit that does not follow a letter, digit, '_' or '.' (so "bf16",
// "L2" and "x86" hold none) and is one of
//   hexadecimal  0x7f, 0xFF_FF        binary  0b1010
//   decimal      448, 1_024, 1,024, 1.5, 1e-6, 2.5E+3, and dotted versions such as 0.8.1;
// letters right after it are a unit and not part of it ("64KB" holds 64, "3.75x" holds 3.75).
// Two numbers are the same when their spellings agree after dropping '_' and ',' separators and
// lower-casing, or when both have a value (versions have none) and the values are equal
// (0x7f = 127, 1.50 = 1.5).
// An identifier is the text of a Markdown code span (`tile_size`, ``a`b``), whitespace-collapsed.
// Cited text contains it when it occurs there (whitespace-collapsed, case-sensitive) and, where
// the identifier starts or ends with a letter, digit or '_', the occurrence does not run on into
// another such character.
#include <string>
#include <string_view>
#include <vector>

namespace headway::knowledge {

// The numbers of text, in order, as written; code spans included.
std::vector<std::string> numbers_in(std::string_view text);
// The code spans of text, in order, whitespace-collapsed, without the backticks.
std::vector<std::string> code_spans_in(std::string_view text);
// text with its code spans and the targets of Markdown links ("[t](url)" -> "[t]") removed.
std::string prose_of(std::string_view text);

bool same_number(std::string_view a, std::string_view b);
bool contains_identifier(std::string_view text, std::string_view identifier);

// What `cited` lacks of the claim, by kind: its numbers (outside code spans and link targets) as
// written, e.g. "448", and its identifiers in backticks with the backticks, e.g. "`tile_size`";
// each in the claim's order, each fact once.
struct MissingFacts {
  std::vector<std::string> numbers;
  std::vector<std::string> identifiers;

  bool empty() const { return numbers.empty() && identifiers.empty(); }
};
MissingFacts find_missing_facts(std::string_view claim, std::string_view cited);

}  // namespace headway::knowledge
