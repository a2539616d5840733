#pragma once
// Diagnostics of toolchains that report errors as "file:line:col: error: message" lines (gcc,
// clang, nvcc and most compilers) or as rustc does ("error[E0277]: message" at the start of a
// line, the position on the next), reduced to what the legality rules key on.
#include <string>
#include <string_view>

namespace headway::targets {

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

}  // namespace headway::targets
