#include "targets/error_diagnostics.h"

#include <cctype>

namespace headway::targets {

namespace {

// A rustc-style error line: "error[E0277]: message".
bool coded_error(std::string_view line) {
  return line.substr(0, 6) == "error[" && line.find("]:") != std::string_view::npos;
}

// The line of `diagnostics` holding the first "error:" (or rustc's "error[CODE]:"), or empty.
std::string_view error_line(std::string_view diagnostics) {
  size_t begin = 0;
  while (begin < diagnostics.size()) {
    size_t end = diagnostics.find('\n', begin);
    if (end == std::string_view::npos) end = diagnostics.size();
    const std::string_view line = diagnostics.substr(begin, end - begin);
    if (line.find("error:") != std::string_view::npos || coded_error(line)) return line;
    begin = end + 1;
  }
  return {};
}

// From "fatal error:" or "error:" on.
std::string_view from_error(std::string_view line) {
  const size_t at = line.find("error:");
  if (at == std::string_view::npos) return coded_error(line) ? line : std::string_view{};
  if (at >= 6 && line.substr(at - 6, 6) == "fatal ") return line.substr(at - 6);
  return line.substr(at);
}

bool is_ident(char c) { return std::isalnum(static_cast<unsigned char>(c)) || c == '_'; }

}  // namespace

std::string first_error_line(std::string_view diagnostics) {
  return std::string(from_error(error_line(diagnostics)));
}

std::string ascii_quotes(std::string_view text) {
  std::string out;
  for (size_t i = 0; i < text.size(); ++i) {
    if (i + 2 < text.size() && static_cast<unsigned char>(text[i]) == 0xE2 &&
        static_cast<unsigned char>(text[i + 1]) == 0x80) {
      const auto c = static_cast<unsigned char>(text[i + 2]);
      if (c == 0x98 || c == 0x99) { out += '\''; i += 2; continue; }
      if (c == 0x9C || c == 0x9D) { out += '"'; i += 2; continue; }
    }
    out += text[i];
  }
  return out;
}

std::string normalize_diagnostic(std::string_view diagnostics) {
  const std::string_view line = from_error(error_line(diagnostics));
  if (line.empty()) return {};
  const std::string text = ascii_quotes(line);
  std::string out;
  for (size_t i = 0; i < text.size();) {
    const char c = text[i];
    if (c == '\'' || c == '"') {
      const size_t close = text.find(c, i + 1);
      if (close != std::string::npos) {
        out += c;
        out += "<id>";
        out += c;
        i = close + 1;
        continue;
      }
    }
    const bool word_start = i == 0 || !is_ident(text[i - 1]);
    if (word_start && (c == '/' || (c == '.' && i + 1 < text.size() && text[i + 1] == '/'))) {
      size_t j = i;
      while (j < text.size() && !std::isspace(static_cast<unsigned char>(text[j])) && text[j] != ':') ++j;
      out += "<path>";
      i = j;
      continue;
    }
    if (word_start && std::isdigit(static_cast<unsigned char>(c))) {
      size_t j = i;
      while (j < text.size() && (is_ident(text[j]) || text[j] == '.' ||
                                 (text[j] == ':' && j + 1 < text.size() &&
                                  std::isdigit(static_cast<unsigned char>(text[j + 1]))))) {
        ++j;
      }
      out += "<n>";
      i = j;
      continue;
    }
    out += c;
    ++i;
  }
  // Trailing spaces and a closing " [-Wflag]" / "[-fpermissive]" stay: they are part of the
  // message's identity; only whitespace at the end goes.
  while (!out.empty() && std::isspace(static_cast<unsigned char>(out.back()))) out.pop_back();
  return out;
}

}  // namespace headway::targets
