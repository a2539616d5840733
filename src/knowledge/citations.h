#pragma once
// The script pass of the cited-summary check: every citation of a summary (citation_markup.h)
// judged against the docs corpus by text alone. Verdicts, decided in this order:
//   broken            the path is not a file of the corpus (missing, skipped, outside the docs
//                     folder), a line number is 0, the range ends before it starts, or it ends
//                     past the file's last line;
//   quote-not-found   the citation quotes a phrase and the cited lines, joined and whitespace-
//                     collapsed, do not contain it (case-sensitive);
//   number-mismatch   the claim holds a number (claim_tokens.h) that the text cited by the
//                     claim's whole citation group does not contain (every citation of the group
//                     gets this verdict: the group supports the claim together);
//   identifier-not-found  the claim's numbers are all there, but it holds a `backticked
//                     identifier` (a code span, claim_tokens.h) that the group's cited text does
//                     not contain (again for every citation of the group);
//   supported-by-text otherwise;
//   malformed         markup that started a citation and did not finish as one; it has no claim.
#include <cstdint>
#include <map>
#include <string>
#include <string_view>
#include <vector>

#include "knowledge/citation_markup.h"
#include "knowledge/corpus.h"

namespace headway::knowledge {

enum class TextVerdict {
  kSupportedByText,
  kNumberMismatch,
  kIdentifierNotFound,
  kQuoteNotFound,
  kBroken,
  kMalformed
};
// "supported-by-text", "number-mismatch", "identifier-not-found", "quote-not-found", "broken",
// "malformed".
std::string_view to_string(TextVerdict verdict);

struct CitationResult {
  int64_t line = 0;  // the summary line of the citation
  int64_t column = 0;
  std::string cite;  // the citation as written
  TextVerdict verdict = TextVerdict::kSupportedByText;
  std::string why;    // empty for supported-by-text; else the reason, e.g. "448 not in a.md:L3-L4"
  std::string claim;  // the claim it supports (empty for malformed)
};

struct CitationReport {
  std::vector<CitationResult> citations;  // in summary order (line, then column)

  // Count per verdict; verdicts with no citation are absent.
  std::map<TextVerdict, int64_t> totals() const;
  // True when there is at least one citation and every one is supported-by-text.
  bool all_supported() const;
  // "716 citations: 683 supported-by-text, 20 number-mismatch, 9 quote-not-found, 4 broken":
  // non-zero counts in the order of TextVerdict; "no citations" when there are none.
  std::string totals_line() const;
};

// The cited lines' text (lines first..last joined with '\n'); requires a citation that is not
// broken against this file.
std::string cited_lines(const CorpusFile& file, const Citation& citation);

// Why the citation cannot be resolved in the corpus; empty when it can.
std::string broken_reason(const Corpus& corpus, const Citation& citation);

CitationReport check_citations(const SummaryMarkup& summary, const Corpus& corpus);

}  // namespace headway::knowledge
