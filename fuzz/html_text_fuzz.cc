// Fuzzes reduce_html (html_text.h), which turns HTML docs into citable lines. Invariants: the
// result is empty or ends in '\n'; no line ends in a space or tab; there is no empty line at the
// start or the end and never two in a row; text input gives text output (the reduced text is what
// gets stored and cited).
#include "fuzz_support.h"
#include "knowledge/html_text.h"
#include "knowledge/text_lines.h"

using namespace headway;

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string_view input = fuzz::as_text(data, size);
  const std::string out = knowledge::reduce_html(input);
  if (out.empty()) return 0;
  FUZZ_CHECK(out.back() == '\n');
  FUZZ_CHECK(out.front() != '\n');
  FUZZ_CHECK(out.find("\n\n\n") == std::string::npos);
  FUZZ_CHECK(out.size() < 2 || out[out.size() - 2] != '\n');
  FUZZ_CHECK(out.find(" \n") == std::string::npos && out.find("\t\n") == std::string::npos);
  if (!knowledge::not_text_reason(input)) FUZZ_CHECK(!knowledge::not_text_reason(out));
  return 0;
}
