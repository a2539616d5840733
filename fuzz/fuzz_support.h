#pragma once
// Shared pieces of the fuzz targets (one LLVMFuzzerTestOneInput per file, see docs/FUZZING.md).
//
// FUZZ_CHECK(cond) states an invariant of the parser under test: when it does not hold it prints
// the condition and stops the process with __builtin_trap, which libFuzzer reports as a crash and
// saves the input.
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <string_view>
#include <utility>

#define FUZZ_CHECK(cond)                                                                      \
  do {                                                                                        \
    if (!(cond)) {                                                                            \
      std::fprintf(stderr, "fuzz invariant failed: %s (%s:%d)\n", #cond, __FILE__, __LINE__); \
      __builtin_trap();                                                                       \
    }                                                                                         \
  } while (0)

namespace headway::fuzz {

// The fuzzer's bytes as text (not necessarily UTF-8).
inline std::string_view as_text(const uint8_t* data, size_t size) {
  return {reinterpret_cast<const char*>(data), size};
}

// True when text is UTF-8 as RFC 3629 defines it (no overlong forms, no surrogates, nothing above
// U+10FFFF). Written independently of text_lines.cc so that it can check it.
inline bool is_utf8(std::string_view text) {
  size_t i = 0;
  while (i < text.size()) {
    const auto b = static_cast<unsigned char>(text[i]);
    size_t n = 0;
    uint32_t cp = 0;
    if (b < 0x80) {
      ++i;
      continue;
    }
    if (b >= 0xC2 && b <= 0xDF) {
      n = 1;
      cp = b & 0x1Fu;
    } else if (b >= 0xE0 && b <= 0xEF) {
      n = 2;
      cp = b & 0x0Fu;
    } else if (b >= 0xF0 && b <= 0xF4) {
      n = 3;
      cp = b & 0x07u;
    } else
      return false;
    if (i + n >= text.size()) return false;  // truncated sequence
    for (size_t k = 1; k <= n; ++k) {
      const auto c = static_cast<unsigned char>(text[i + k]);
      if ((c & 0xC0u) != 0x80u) return false;
      cp = (cp << 6) | (c & 0x3Fu);
    }
    if ((n == 2 && cp < 0x800) || (n == 3 && cp < 0x10000) || cp > 0x10FFFF ||
        (cp >= 0xD800 && cp <= 0xDFFF)) {
      return false;
    }
    i += n + 1;
  }
  return true;
}

// Splits input at the first occurrence of separator: {before, after}; {input, ""} without one.
inline std::pair<std::string_view, std::string_view> split_at(std::string_view input,
                                                              std::string_view separator) {
  const size_t at = input.find(separator);
  if (at == std::string_view::npos) return {input, {}};
  return {input.substr(0, at), input.substr(at + separator.size())};
}

}  // namespace headway::fuzz
