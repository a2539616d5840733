#pragma once
// Text as the knowledge part sees it: UTF-8, split into numbered lines.
//
// Line numbering (used by the corpus, the summaries and every citation): the text is split at
// '\n'; a '\r' just before a '\n' belongs to the line break, not to the line; a leading UTF-8
// byte-order mark is dropped; the text after the last '\n' is a line when it is not empty. So a
// file "a\nb\n" has 2 lines, "a\nb" has 2, "" has 0, and line 1 is the first line.
#include <cstddef>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace headway::knowledge {

// Why bytes are not text: nullopt when they are valid UTF-8 (RFC 3629: no overlong forms, no
// surrogates, nothing above U+10FFFF) without NUL bytes; otherwise a short reason naming the
// byte offset, e.g. "binary (NUL byte at offset 12)" or "not UTF-8 (invalid byte at offset 3)".
std::optional<std::string> not_text_reason(std::string_view bytes);

// The lines of text, numbered as described above (lines[0] is line 1).
std::vector<std::string> split_lines(std::string_view text);

// Lines joined with '\n', each one followed by '\n' (empty for no lines): split_lines' inverse on
// normalized text.
std::string join_lines(const std::vector<std::string>& lines);

// Every run of whitespace (space, tab, '\n', '\r', '\f', '\v') replaced by one space, with none
// at either end.
std::string collapse_whitespace(std::string_view text);

// Appends the UTF-8 encoding of a code point; U+FFFD for surrogates and values above U+10FFFF.
void append_utf8(std::string& out, char32_t code_point);

}  // namespace headway::knowledge
