#pragma once
// The kernel language of a target's candidates, as far as headway writes into them: its line
// comment, in which headway's own marker lines are written (`<comment> headway-file: PATH`), and
// how a design's parameters reach the source. Markers are recognised with the language's comment
// or with `//`, so a design or candidate written either way reads the same.
//
// Parameters (kernels/designs/README.md):
// - kDefine: one `#define P_NAME value` line per parameter in front of the design's text, for
//   languages with a C preprocessor (C, C++, CUDA).
// - kPlaceholder: headway replaces every `{{P_NAME}}` in the design's text by the value and
//   leaves the header out, for languages without one (Python DSLs, Rust, ...).
#include <optional>
#include <set>
#include <string>
#include <string_view>

#include "common/result.h"

namespace headway::targets {

struct KernelLanguage {
  enum class Params { kDefine, kPlaceholder };
  std::string comment = "//";  // the line comment's opening: "//", "#", "--", ";", "!"
  Params params = Params::kDefine;
  // The design header is left out of a rendered candidate (always with kPlaceholder). The cpu,
  // cuda and sim targets keep it as a comment; the command target writes only the kernel's code.
  bool strip_design_header = false;
  // The extension of a file of one kernel's source, dot included (headway export).
  std::string file_extension = ".cc";
};

// The text of `line` after its comment opening and spaces when it is a comment in `language` or
// a `//` comment (either possibly indented); nullopt when it is not a comment.
std::optional<std::string_view> comment_body(std::string_view line, const KernelLanguage& language);

// The value of headway's marker `key` ("headway-file", "headway-kernel") on `line`, trimmed, when
// the line is that marker in either comment syntax.
std::optional<std::string> marker_value(std::string_view line, const KernelLanguage& language,
                                        std::string_view key);

// A marker line in the language's own comment: "# headway-file: kernels/qkv.py".
std::string marker_line(const KernelLanguage& language, std::string_view key,
                        std::string_view value);

// The names of the `{{P_NAME}}` placeholders in `text`. An opening `{{P_` whose name is not
// [A-Z0-9_]+ closed by `}}` is an error naming its line, counted from `first_line`.
Result<std::set<std::string>> placeholders_in(std::string_view text, int first_line = 1);

// `text` without its design header: the leading comment lines (either syntax) up to the first
// line that is code or a `headway-file` marker.
std::string_view without_header(std::string_view text, const KernelLanguage& language);

}  // namespace headway::targets
