#include "targets/kernel_language.h"

#include <fmt/format.h>

namespace headway::targets {

namespace {

std::string_view trim_left(std::string_view s) {
  const size_t a = s.find_first_not_of(" \t");
  return a == std::string_view::npos ? std::string_view{} : s.substr(a);
}

std::string_view trim(std::string_view s) {
  s = trim_left(s);
  const size_t b = s.find_last_not_of(" \t\r");
  return b == std::string_view::npos ? std::string_view{} : s.substr(0, b + 1);
}

bool is_name_char(char c) { return (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_'; }

}  // namespace

std::optional<std::string_view> comment_body(std::string_view line,
                                             const KernelLanguage& language) {
  const std::string_view text = trim_left(line);
  for (const std::string_view opening :
       {std::string_view(language.comment), std::string_view("//")}) {
    if (!opening.empty() && text.substr(0, opening.size()) == opening)
      return trim_left(text.substr(opening.size()));
  }
  return std::nullopt;
}

std::optional<std::string> marker_value(std::string_view line, const KernelLanguage& language,
                                        std::string_view key) {
  const auto body = comment_body(line, language);
  if (!body || body->substr(0, key.size()) != key || body->substr(key.size(), 1) != ":")
    return std::nullopt;
  return std::string(trim(body->substr(key.size() + 1)));
}

std::string marker_line(const KernelLanguage& language, std::string_view key,
                        std::string_view value) {
  return fmt::format("{} {}: {}", language.comment, key, value);
}

Result<std::set<std::string>> placeholders_in(std::string_view text, int first_line) {
  std::set<std::string> names;
  int line = first_line;
  for (size_t i = 0; i < text.size(); ++i) {
    if (text[i] == '\n') ++line;
    if (text.compare(i, 4, "{{P_") != 0) continue;
    size_t end = i + 2;
    while (end < text.size() && is_name_char(text[end])) ++end;
    if (text.compare(end, 2, "}}") != 0) {
      return invalid_input(fmt::format(
          "line {}: a placeholder opens with '{{{{P_' but is not {{{{P_NAME}}}} (capitals, digits "
          "and '_', closed by '}}}}')",
          line));
    }
    names.emplace(text.substr(i + 2, end - i - 2));
    i = end + 1;
  }
  return names;
}

std::string_view without_header(std::string_view text, const KernelLanguage& language) {
  size_t pos = 0;
  while (pos < text.size()) {
    size_t end = text.find('\n', pos);
    end = end == std::string_view::npos ? text.size() : end + 1;
    const std::string_view line = text.substr(pos, end - pos);
    if (!comment_body(line, language) || marker_value(line, language, "headway-file")) break;
    pos = end;
  }
  return text.substr(pos);
}

}  // namespace headway::targets
