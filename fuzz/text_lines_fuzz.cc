// Fuzzes text_lines.h, the text check every summary (summary_file.h) and docs file passes.
// Invariants: not_text_reason agrees with an independent UTF-8 check plus "no NUL byte"; no line
// holds '\n'; join_lines then split_lines gives the lines back when they are normalized (no line
// ends in '\r', the first does not start with a byte-order mark); collapse_whitespace leaves no
// whitespace run and is idempotent.
#include "fuzz_support.h"
#include "knowledge/text_lines.h"

using namespace headway;

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string_view input = fuzz::as_text(data, size);
  const bool text = fuzz::is_utf8(input) && input.find('\0') == std::string_view::npos;
  FUZZ_CHECK(knowledge::not_text_reason(input).has_value() == !text);

  const std::vector<std::string> lines = knowledge::split_lines(input);
  bool normalized = lines.empty() || !lines.front().starts_with("\xEF\xBB\xBF");
  for (const auto& line : lines) {
    FUZZ_CHECK(line.find('\n') == std::string::npos);
    if (!line.empty() && line.back() == '\r') normalized = false;
  }
  if (normalized) FUZZ_CHECK(knowledge::split_lines(knowledge::join_lines(lines)) == lines);

  const std::string collapsed = knowledge::collapse_whitespace(input);
  FUZZ_CHECK(knowledge::collapse_whitespace(collapsed) == collapsed);
  FUZZ_CHECK(collapsed.empty() || (collapsed.front() != ' ' && collapsed.back() != ' '));
  FUZZ_CHECK(collapsed.find("  ") == std::string::npos);
  return 0;
}
