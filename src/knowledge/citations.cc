#include "knowledge/citations.h"

#include <fmt/format.h>

#include <algorithm>
#include <cstdlib>
#include <stdexcept>

#include "knowledge/claim_tokens.h"
#include "knowledge/text_lines.h"

namespace headway::knowledge {

namespace {

constexpr size_t kMaxLinesSearchedForAQuote = 20000;

std::string range_text(const Citation& c) {
  return c.first == c.last ? fmt::format("{}:L{}", c.path, c.first)
                           : fmt::format("{}:L{}-L{}", c.path, c.first, c.last);
}

// Where else in the file a window as long as the citation's range holds the quote, nearest first.
std::string quote_hint(const CorpusFile& file, const Citation& c, const std::string& quote) {
  const auto n = static_cast<int64_t>(file.lines.size());
  if (file.lines.size() > kMaxLinesSearchedForAQuote) return {};
  const int64_t span = c.last - c.first;
  int64_t best = 0;
  for (int64_t start = 1; start + span <= n; ++start) {
    std::string window;
    for (int64_t l = start; l <= start + span; ++l) window += file.lines[l - 1] + "\n";
    if (collapse_whitespace(window).find(quote) == std::string::npos) continue;
    if (best == 0 || std::abs(start - c.first) < std::abs(best - c.first)) best = start;
  }
  if (best == 0) return {};
  return span == 0 ? fmt::format(" (it is at L{})", best)
                   : fmt::format(" (it is at L{}-L{})", best, best + span);
}

std::string join_facts(const std::vector<std::string>& facts) {
  std::string out;
  for (size_t i = 0; i < facts.size(); ++i) {
    if (i > 0) out += i + 1 == facts.size() ? " and " : ", ";
    out += facts[i];
  }
  return out;
}

}  // namespace

std::string_view to_string(TextVerdict verdict) {
  switch (verdict) {
    case TextVerdict::kSupportedByText:
      return "supported-by-text";
    case TextVerdict::kNumberMismatch:
      return "number-mismatch";
    case TextVerdict::kIdentifierNotFound:
      return "identifier-not-found";
    case TextVerdict::kQuoteNotFound:
      return "quote-not-found";
    case TextVerdict::kBroken:
      return "broken";
    case TextVerdict::kMalformed:
      return "malformed";
  }
  return "unknown";
}

std::map<TextVerdict, int64_t> CitationReport::totals() const {
  std::map<TextVerdict, int64_t> counts;
  for (const auto& c : citations) ++counts[c.verdict];
  return counts;
}

bool CitationReport::all_supported() const {
  return !citations.empty() &&
         std::all_of(citations.begin(), citations.end(), [](const CitationResult& c) {
           return c.verdict == TextVerdict::kSupportedByText;
         });
}

std::string CitationReport::totals_line() const {
  if (citations.empty()) return "no citations";
  std::string out =
      fmt::format("{} citation{}:", citations.size(), citations.size() == 1 ? "" : "s");
  bool first = true;
  for (const auto& [verdict, count] : totals()) {
    out += fmt::format("{} {} {}", first ? "" : ",", count, to_string(verdict));
    first = false;
  }
  return out;
}

std::string cited_lines(const CorpusFile& file, const Citation& citation) {
  if (citation.first < 1 || citation.last < citation.first ||
      citation.last > static_cast<int64_t>(file.lines.size())) {
    throw std::logic_error(fmt::format("cited_lines on a broken citation {}", citation.text));
  }
  std::string text;
  for (int64_t l = citation.first; l <= citation.last; ++l) {
    if (l > citation.first) text += '\n';
    text += file.lines[l - 1];
  }
  return text;
}

std::string broken_reason(const Corpus& corpus, const Citation& c) {
  const CorpusFile* file = corpus.find(c.path);
  if (file == nullptr) {
    if (const SkippedFile* skipped = corpus.find_skipped(c.path)) {
      return fmt::format("{} is not in the corpus: {}", c.path, skipped->reason);
    }
    return fmt::format("no file {} in {}", c.path, corpus.root.string());
  }
  if (c.first < 1) return "line numbers start at L1";
  if (c.last < c.first)
    return fmt::format("the range ends (L{}) before it starts (L{})", c.last, c.first);
  if (c.last > static_cast<int64_t>(file->lines.size())) {
    return fmt::format("{} has {} lines; L{} is past its end", c.path, file->lines.size(), c.last);
  }
  return {};
}

CitationReport check_citations(const SummaryMarkup& summary, const Corpus& corpus) {
  CitationReport report;
  for (const Claim& claim : summary.claims) {
    std::string group_text;
    std::vector<std::string> broken(claim.citations.size());
    for (size_t i = 0; i < claim.citations.size(); ++i) {
      broken[i] = broken_reason(corpus, claim.citations[i]);
      if (broken[i].empty())
        group_text += cited_lines(*corpus.find(claim.citations[i].path), claim.citations[i]) + "\n";
    }
    const MissingFacts missing = find_missing_facts(claim.text, group_text);
    for (size_t i = 0; i < claim.citations.size(); ++i) {
      const Citation& c = claim.citations[i];
      CitationResult r{c.line, c.column, c.text, TextVerdict::kSupportedByText, {}, claim.text};
      if (!broken[i].empty()) {
        r.verdict = TextVerdict::kBroken;
        r.why = broken[i];
      } else if (const CorpusFile& file = *corpus.find(c.path);
                 c.quote &&
                 collapse_whitespace(cited_lines(file, c)).find(collapse_whitespace(*c.quote)) ==
                     std::string::npos) {
        r.verdict = TextVerdict::kQuoteNotFound;
        r.why = fmt::format("\"{}\" is not in {}{}", *c.quote, range_text(c),
                            quote_hint(file, c, collapse_whitespace(*c.quote)));
      } else if (!missing.numbers.empty()) {
        r.verdict = TextVerdict::kNumberMismatch;
        r.why = fmt::format("{} not in the cited lines", join_facts(missing.numbers));
        if (!missing.identifiers.empty())
          r.why += fmt::format(" (nor {})", join_facts(missing.identifiers));
      } else if (!missing.identifiers.empty()) {
        r.verdict = TextVerdict::kIdentifierNotFound;
        r.why = fmt::format("{} not in the cited lines", join_facts(missing.identifiers));
      }
      report.citations.push_back(std::move(r));
    }
  }
  for (const MalformedCitation& m : summary.malformed) {
    report.citations.push_back({m.line, m.column, m.text, TextVerdict::kMalformed, m.why, {}});
  }
  std::stable_sort(report.citations.begin(), report.citations.end(),
                   [](const CitationResult& a, const CitationResult& b) {
                     return a.line != b.line ? a.line < b.line : a.column < b.column;
                   });
  return report;
}

}  // namespace headway::knowledge
