#pragma once
// ASCII character classes and case mapping, the same in every C locale (std::isdigit and
// std::tolower depend on it).
#include <string>
#include <string_view>

namespace headway {

// '0' to '9' only.
constexpr bool is_ascii_digit(char c) { return c >= '0' && c <= '9'; }

// The text with 'A' to 'Z' mapped to 'a' to 'z'; every other byte (UTF-8 included) unchanged.
inline std::string ascii_lower(std::string_view text) {
  std::string out(text);
  for (char& c : out) {
    if (c >= 'A' && c <= 'Z') c = static_cast<char>(c - 'A' + 'a');
  }
  return out;
}

}  // namespace headway
