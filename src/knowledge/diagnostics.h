#pragma once
// A compiler's diagnostics as the rules part reads them: the first "error:" line, abstracted into
// a signature (rules.h) and searched for the names a detector rejects (rule_detector.h). The
// diagnostics are any bytes a compiler wrote; nothing here fails.
#include <string>
#include <string_view>

namespace headway::knowledge {

// The normalized first line of `diagnostics` that contains "error:", starting at "error:" (or
// "fatal error:"): quoted text becomes '<id>' (ASCII and typographic quotes), file paths
// <path>, line:col positions and other numbers <n>. Empty when no line holds "error:".
// E.g. "a.cc:1:12: error: ‘foo’ was not declared in this scope" ->
// "error: '<id>' was not declared in this scope".
std::string normalize_diagnostic(std::string_view diagnostics);
// The first "error:" line as the compiler wrote it, from "error:" on (paths stripped before it).
std::string first_error_line(std::string_view diagnostics);
// text with typographic quotes (UTF-8 U+2018, U+2019 and U+201C, U+201D) made ASCII (' and ").
std::string ascii_quotes(std::string_view text);

}  // namespace headway::knowledge
