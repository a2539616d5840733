// Fuzzes the script pass of the cited-summary check (citations.h) and its JSON form
// (citation_json.h), as `headway check-citations --json` runs them. The input is a document and a
// summary separated by a line "=====": the document is the corpus's a.md and, reduced as HTML,
// its b.html. Invariants: every verdict is one of the six, the totals add up to the citations,
// results come in summary order, and the JSON of a text summary can be written (nlohmann::json
// throws on invalid UTF-8).
#include <set>

#include "fuzz_support.h"
#include "knowledge/citation_json.h"
#include "knowledge/citation_markup.h"
#include "knowledge/citations.h"
#include "knowledge/corpus.h"
#include "knowledge/text_lines.h"

using namespace headway;

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const auto [doc, summary] = fuzz::split_at(fuzz::as_text(data, size), "\n=====\n");
  // Both files pass the text check first, as read_corpus and read_summary_file do.
  if (knowledge::not_text_reason(doc) || knowledge::not_text_reason(summary)) return 0;
  knowledge::Corpus corpus;
  corpus.root = "/docs";
  corpus.files.push_back(
      knowledge::make_corpus_file("a.md", knowledge::DocKind::kMarkdown, doc).value());
  corpus.files.push_back(
      knowledge::make_corpus_file("b.html", knowledge::DocKind::kHtml, doc).value());

  const knowledge::SummaryMarkup markup = knowledge::parse_summary(summary);
  const knowledge::CitationReport report = knowledge::check_citations(markup, corpus);
  FUZZ_CHECK(report.citations.size() == markup.citation_count() + markup.malformed.size());
  static const std::set<std::string_view> kVerdicts = {
      "supported-by-text", "number-mismatch", "identifier-not-found",
      "quote-not-found",   "broken",          "malformed"};
  int64_t total = 0;
  for (const auto& [verdict, n] : report.totals()) total += n;
  FUZZ_CHECK(total == static_cast<int64_t>(report.citations.size()));
  for (size_t i = 0; i < report.citations.size(); ++i) {
    const auto& r = report.citations[i];
    FUZZ_CHECK(kVerdicts.contains(knowledge::to_string(r.verdict)));
    FUZZ_CHECK(r.why.empty() == (r.verdict == knowledge::TextVerdict::kSupportedByText));
    if (i > 0) {
      const auto& p = report.citations[i - 1];
      FUZZ_CHECK(p.line < r.line || (p.line == r.line && p.column < r.column));
    }
  }
  const std::string json = knowledge::citations_json(report).dump();
  const std::string totals = knowledge::totals_json(report).dump();
  FUZZ_CHECK(!json.empty() && !totals.empty() && !report.totals_line().empty());
  return 0;
}
