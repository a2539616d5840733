#pragma once
// Detectors: patterns that reject a candidate before it is built, because a legality rule says
// the toolchain refuses what they match. A detector is an ECMAScript regular expression
// (std::regex) searched in the candidate's source with its comments blanked out, so a pattern named
// only in a comment does not count.
//
// Detectors are derived only from diagnostics that name a property of the toolchain rather than
// of one candidate:
//   a missing header     GCC "fatal error: omp.h: No such file or directory",
//                        clang "fatal error: 'omp.h' file not found"
//                        -> an #include of that header;
//   a target mismatch    GCC "inlining failed in call to 'always_inline' '__m512
//   _mm512_add_ps(...)':
//                        target specific option mismatch", clang "always_inline function
//                        '_mm512_add_ps' requires target feature 'avx512f'"
//                        -> the intrinsic's name as a whole word;
//   an unknown builtin   "'__builtin_x' was not declared", "use of undeclared identifier
//                        '_mm_x'" for names starting with __builtin_ or _mm
//                        -> the name as a whole word.
// Anything else (an undeclared name of the candidate's own, a type error) gets no detector.
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include "common/result.h"

namespace headway::knowledge {

// source with every // and /* */ comment replaced by spaces (newlines kept, so line numbers stay);
// string and character literals are left as they are (a "//" inside one is not a comment).
std::string blank_comments(std::string_view source);

// The detector for the first error of `diagnostics` (see above), or nullopt.
std::optional<std::string> derive_detector(std::string_view diagnostics);

struct DetectorMatch {
  int64_t line = 0;  // 1-based line of the match's start
  std::string text;  // that line, trimmed, at most 120 bytes
};

// Where the detector matches the source (comments blanked), or nullopt. A pattern that does not
// compile matches nothing.
std::optional<DetectorMatch> detector_match(const std::string& pattern, std::string_view source);

// An error when the pattern is empty or does not compile, or when a repro is given and the
// pattern does not match it (a detector must reject the source that showed the rule).
Result<bool> validate_detector(const std::string& pattern, const std::optional<std::string>& repro);

}  // namespace headway::knowledge
