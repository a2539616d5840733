// Fuzzes what the rules part reads from a compiler's diagnostics (diagnostics.h, rule_detector.h)
// and from a candidate's source. The input is diagnostics and a source separated by a line
// "=====". Invariants: a derived detector is a regular expression that compiles; blank_comments
// keeps the length and every '\n'; a match's line is within the source and, for a text source,
// its text is text.
#include <algorithm>

#include "fuzz_support.h"
#include "knowledge/rule_detector.h"
#include "knowledge/text_lines.h"
#include "targets/error_diagnostics.h"

using namespace headway;

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const auto [diagnostics, source] = fuzz::split_at(fuzz::as_text(data, size), "\n=====\n");
  const std::string signature = targets::normalize_diagnostic(diagnostics);
  const std::string first = targets::first_error_line(diagnostics);
  FUZZ_CHECK(signature.empty() == first.empty());
  FUZZ_CHECK(first.empty() || first.find("error:") != std::string::npos);

  const std::string blanked = knowledge::blank_comments(source);
  FUZZ_CHECK(blanked.size() == source.size());
  for (size_t i = 0; i < source.size(); ++i)
    FUZZ_CHECK((source[i] == '\n') == (blanked[i] == '\n'));

  const auto detector = knowledge::derive_detector(diagnostics);
  if (!detector) return 0;
  FUZZ_CHECK(knowledge::validate_detector(*detector, std::nullopt).ok());
  if (const auto match = knowledge::detector_match(*detector, source)) {
    const auto lines = std::count(source.begin(), source.end(), '\n') + 1;
    FUZZ_CHECK(match->line >= 1 && match->line <= lines);
    FUZZ_CHECK(match->text.size() <= 120);
    if (!knowledge::not_text_reason(source)) FUZZ_CHECK(!knowledge::not_text_reason(match->text));
  }
  return 0;
}
