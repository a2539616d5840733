// Fuzzes parse_summary (citation_markup.h) on arbitrary Markdown. Invariants: every citation is
// written "[...]" on the line and column it names, its range starts at a line number the markup
// can hold, every claim has a citation, every malformed attempt says why; and for text input
// (what read_summary_file accepts) everything reported is text too.
#include "fuzz_support.h"
#include "knowledge/citation_markup.h"
#include "knowledge/text_lines.h"

using namespace headway;

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string_view input = fuzz::as_text(data, size);
  const knowledge::SummaryMarkup markup = knowledge::parse_summary(input);
  const std::vector<std::string> lines = knowledge::split_lines(input);
  const bool text = !knowledge::not_text_reason(input).has_value();
  size_t count = 0;
  for (const auto& claim : markup.claims) {
    FUZZ_CHECK(!claim.citations.empty());
    FUZZ_CHECK(claim.line >= 1);
    if (text) FUZZ_CHECK(fuzz::is_utf8(claim.text));
    for (const auto& c : claim.citations) {
      ++count;
      FUZZ_CHECK(c.line >= 1 && c.line <= static_cast<int64_t>(lines.size()));
      FUZZ_CHECK(c.column >= 1);
      const std::string& line = lines[static_cast<size_t>(c.line - 1)];
      FUZZ_CHECK(line.compare(static_cast<size_t>(c.column - 1), c.text.size(), c.text) == 0);
      FUZZ_CHECK(c.text.front() == '[' && c.text.back() == ']');
      FUZZ_CHECK(c.first >= 0 && c.last >= 0 && !c.path.empty());
      if (text) FUZZ_CHECK(fuzz::is_utf8(c.path) && (!c.quote || fuzz::is_utf8(*c.quote)));
    }
  }
  FUZZ_CHECK(count == markup.citation_count());
  for (const auto& m : markup.malformed) {
    FUZZ_CHECK(m.line >= 1 && m.line <= static_cast<int64_t>(lines.size()));
    FUZZ_CHECK(m.column >= 1 && !m.why.empty() && !m.text.empty());
    if (text) FUZZ_CHECK(fuzz::is_utf8(m.text) && fuzz::is_utf8(m.why));
  }
  return 0;
}
