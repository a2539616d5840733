#include "knowledge/rule_detector.h"

#include <fmt/format.h>

#include <algorithm>
#include <cctype>
#include <regex>

#include "targets/error_diagnostics.h"

namespace headway::knowledge {

namespace {

bool is_ident(char c) { return std::isalnum(static_cast<unsigned char>(c)) || c == '_'; }

// ECMAScript-escapes every character that has a meaning in a pattern.
std::string escape(std::string_view text) {
  std::string out;
  for (char c : text) {
    if (std::string_view("\\^$.|?*+()[]{}/").find(c) != std::string_view::npos) out += '\\';
    out += c;
  }
  return out;
}

std::string whole_word(std::string_view name) { return "\\b" + escape(name) + "\\b"; }

bool is_intrinsic(std::string_view name) {
  return name.substr(0, 10) == "__builtin_" || name.substr(0, 3) == "_mm";
}

}  // namespace

std::string blank_comments(std::string_view source) {
  std::string out(source);
  enum { kCode, kLine, kBlock, kString, kChar } state = kCode;
  for (size_t i = 0; i < out.size(); ++i) {
    const char c = out[i];
    const char next = i + 1 < out.size() ? out[i + 1] : '\0';
    switch (state) {
      case kCode:
        if (c == '/' && next == '/') {
          state = kLine;
          out[i] = ' ';
        } else if (c == '/' && next == '*') {
          state = kBlock;
          out[i] = out[i + 1] = ' ';
          ++i;
        } else if (c == '"')
          state = kString;
        else if (c == '\'' && !(i > 0 && is_ident(out[i - 1])))
          state = kChar;  // not 1'000
        break;
      case kLine:
        if (c == '\n')
          state = kCode;
        else
          out[i] = ' ';
        break;
      case kBlock:
        if (c == '*' && next == '/') {
          out[i] = out[i + 1] = ' ';
          ++i;
          state = kCode;
        } else if (c != '\n')
          out[i] = ' ';
        break;
      case kString:
      case kChar:
        if (c == '\\')
          ++i;
        else if (c == (state == kString ? '"' : '\'') || c == '\n')
          state = kCode;
        break;
    }
  }
  return out;
}

std::optional<std::string> derive_detector(std::string_view diagnostics) {
  const std::string line = targets::ascii_quotes(targets::first_error_line(diagnostics));
  if (line.empty()) return std::nullopt;
  static const std::regex gcc_header(R"(error: ([^ :']+): No such file or directory)");
  static const std::regex clang_header(R"(error: '([^']+)' file not found)");
  static const std::regex gcc_target(
      R"(inlining failed in call to 'always_inline' '[^']*?\b(\w+)\s*\([^']*': target specific option mismatch)");
  static const std::regex clang_target(R"(always_inline function '(\w+)' requires target feature)");
  static const std::regex gcc_undeclared(R"(error: '(\w+)' was not declared in this scope)");
  static const std::regex clang_undeclared(R"(error: use of undeclared identifier '(\w+)')");
  std::smatch m;
  if (std::regex_search(line, m, gcc_header) || std::regex_search(line, m, clang_header)) {
    return "#\\s*include\\s*[<\"]" + escape(m[1].str()) + "[>\"]";
  }
  if (std::regex_search(line, m, gcc_target) || std::regex_search(line, m, clang_target)) {
    return whole_word(m[1].str());
  }
  if ((std::regex_search(line, m, gcc_undeclared) ||
       std::regex_search(line, m, clang_undeclared)) &&
      is_intrinsic(m[1].str())) {
    return whole_word(m[1].str());
  }
  return std::nullopt;
}

std::optional<DetectorMatch> detector_match(const std::string& pattern, std::string_view source) {
  std::regex re;
  try {
    re = std::regex(pattern, std::regex::ECMAScript);
  } catch (const std::regex_error&) {
    return std::nullopt;
  }
  const std::string code = blank_comments(source);
  std::smatch m;
  if (!std::regex_search(code, m, re)) return std::nullopt;
  const size_t at = static_cast<size_t>(m.position(0));
  DetectorMatch match;
  match.line = 1 + std::count(code.begin(), code.begin() + static_cast<std::ptrdiff_t>(at), '\n');
  const size_t begin = code.rfind('\n', at) == std::string::npos ? 0 : code.rfind('\n', at) + 1;
  const size_t end = std::min(code.find('\n', at), code.size());
  std::string text(source.substr(begin, end - begin));
  const size_t first = text.find_first_not_of(" \t");
  text = first == std::string::npos ? ""
                                    : text.substr(first, text.find_last_not_of(" \t") - first + 1);
  match.text = text.substr(0, 120);
  return match;
}

Result<bool> validate_detector(const std::string& pattern,
                               const std::optional<std::string>& repro) {
  if (pattern.empty()) return invalid_input("a detector cannot be empty");
  try {
    std::regex re(pattern, std::regex::ECMAScript);
  } catch (const std::regex_error& e) {
    return invalid_input(
        fmt::format("detector /{}/ is not a regular expression: {}", pattern, e.what()));
  }
  if (repro && !detector_match(pattern, *repro)) {
    return invalid_input(fmt::format("detector /{}/ does not match the rule's repro", pattern));
  }
  return true;
}

}  // namespace headway::knowledge
