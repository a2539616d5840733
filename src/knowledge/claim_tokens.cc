#include "knowledge/claim_tokens.h"

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <optional>

#include "common/ascii.h"
#include "knowledge/text_lines.h"

namespace headway::knowledge {

namespace {

bool is_hex(char c) {
  return is_ascii_digit(c) || (c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F');
}
bool is_alpha(char c) { return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z'); }
bool is_word(char c) { return is_alpha(c) || is_ascii_digit(c) || c == '_'; }

// The length of the number starting at text[i], which the caller checked starts one.
size_t number_length(std::string_view text, size_t i) {
  const auto at = [&](size_t k) { return k < text.size() ? text[k] : '\0'; };
  if (at(i) == '0' && (at(i + 1) == 'x' || at(i + 1) == 'X') && is_hex(at(i + 2))) {
    size_t k = i + 2;
    while (is_hex(at(k)) || (at(k) == '_' && is_hex(at(k + 1)))) ++k;
    return k - i;
  }
  if (at(i) == '0' && (at(i + 1) == 'b' || at(i + 1) == 'B') &&
      (at(i + 2) == '0' || at(i + 2) == '1')) {
    size_t k = i + 2;
    while (at(k) == '0' || at(k) == '1' || (at(k) == '_' && (at(k + 1) == '0' || at(k + 1) == '1')))
      ++k;
    return k - i;
  }
  size_t k = i;
  const auto separator_at = [&](size_t p) {
    const bool underscore = at(p) == '_' && is_ascii_digit(at(p + 1));
    const bool thousands = at(p) == ',' && is_ascii_digit(at(p + 1)) && is_ascii_digit(at(p + 2)) &&
                           is_ascii_digit(at(p + 3)) && !is_ascii_digit(at(p + 4));
    return underscore || thousands;
  };
  while (is_ascii_digit(at(k)) || separator_at(k)) ++k;
  while (at(k) == '.' && is_ascii_digit(at(k + 1))) {
    ++k;
    while (is_ascii_digit(at(k))) ++k;
  }
  if (at(k) == 'e' || at(k) == 'E') {
    size_t e = k + 1;
    if (at(e) == '+' || at(e) == '-') ++e;
    if (is_ascii_digit(at(e))) {
      while (is_ascii_digit(at(e))) ++e;
      k = e;
    }
  }
  return k - i;
}

std::string normalized(std::string_view number) {
  std::string out;
  for (const char c : number) {
    if (c == '_' || c == ',') continue;
    out += (c >= 'A' && c <= 'Z') ? static_cast<char>(c - 'A' + 'a') : c;
  }
  return out;
}

std::optional<double> value_of(std::string_view number) {
  const std::string n = normalized(number);
  if (std::count(n.begin(), n.end(), '.') > 1) return std::nullopt;
  char* end = nullptr;
  double v = 0;
  if (n.starts_with("0x")) {
    v = static_cast<double>(std::strtoull(n.c_str() + 2, &end, 16));
  } else if (n.starts_with("0b")) {
    v = static_cast<double>(std::strtoull(n.c_str() + 2, &end, 2));
  } else {
    v = std::strtod(n.c_str(), &end);
  }
  if (end == nullptr || *end != '\0' || !std::isfinite(v)) return std::nullopt;
  return v;
}

// Calls f(begin, end, content) for each code span; content excludes the backtick runs.
template <typename F>
void for_each_code_span(std::string_view text, F&& f) {
  size_t i = 0;
  while (i < text.size()) {
    if (text[i] != '`') {
      ++i;
      continue;
    }
    size_t run = 0;
    while (i + run < text.size() && text[i + run] == '`') ++run;
    const std::string_view fence = text.substr(i, run);
    size_t close = text.find(fence, i + run);
    while (close != std::string_view::npos && close + run < text.size() &&
           text[close + run] == '`') {
      size_t skip = close;
      while (skip < text.size() && text[skip] == '`') ++skip;
      close = text.find(fence, skip);
    }
    if (close == std::string_view::npos) {
      i += run;
      continue;
    }
    f(i, close + run, text.substr(i + run, close - i - run));
    i = close + run;
  }
}

}  // namespace

std::vector<std::string> numbers_in(std::string_view text) {
  std::vector<std::string> out;
  size_t i = 0;
  while (i < text.size()) {
    const bool starts =
        is_ascii_digit(text[i]) && (i == 0 || (!is_word(text[i - 1]) && text[i - 1] != '.'));
    if (!starts) {
      ++i;
      continue;
    }
    const size_t n = number_length(text, i);
    out.emplace_back(text.substr(i, n));
    i += n;
    while (i < text.size() && is_word(text[i])) ++i;
  }
  return out;
}

std::vector<std::string> code_spans_in(std::string_view text) {
  std::vector<std::string> out;
  for_each_code_span(text, [&](size_t, size_t, std::string_view content) {
    std::string span = collapse_whitespace(content);
    if (!span.empty()) out.push_back(std::move(span));
  });
  return out;
}

std::string prose_of(std::string_view text) {
  std::string without_code;
  size_t from = 0;
  for_each_code_span(text, [&](size_t begin, size_t end, std::string_view) {
    without_code.append(text.substr(from, begin - from));
    without_code += ' ';
    from = end;
  });
  without_code.append(text.substr(from));
  std::string out;
  size_t i = 0;
  while (i < without_code.size()) {
    if (without_code.compare(i, 2, "](") == 0) {
      const size_t close = without_code.find(')', i + 2);
      if (close != std::string::npos) {
        out += ']';
        i = close + 1;
        continue;
      }
    }
    out += without_code[i++];
  }
  return out;
}

bool same_number(std::string_view a, std::string_view b) {
  if (normalized(a) == normalized(b)) return true;
  const auto va = value_of(a);
  const auto vb = value_of(b);
  return va && vb && *va == *vb;
}

bool contains_identifier(std::string_view text, std::string_view identifier) {
  const std::string needle = collapse_whitespace(identifier);
  if (needle.empty()) return true;
  const std::string hay = collapse_whitespace(text);
  const bool guard_front = is_word(needle.front());
  const bool guard_back = is_word(needle.back());
  for (size_t at = hay.find(needle); at != std::string::npos; at = hay.find(needle, at + 1)) {
    const size_t end = at + needle.size();
    const bool front_ok = !guard_front || at == 0 || !is_word(hay[at - 1]);
    const bool back_ok = !guard_back || end == hay.size() || !is_word(hay[end]);
    if (front_ok && back_ok) return true;
  }
  return false;
}

MissingFacts find_missing_facts(std::string_view claim, std::string_view cited) {
  MissingFacts missing;
  const auto add = [](std::vector<std::string>& list, std::string fact) {
    if (std::find(list.begin(), list.end(), fact) == list.end()) list.push_back(std::move(fact));
  };
  const std::vector<std::string> cited_numbers = numbers_in(cited);
  for (const auto& number : numbers_in(prose_of(claim))) {
    const bool found = std::any_of(cited_numbers.begin(), cited_numbers.end(),
                                   [&](const std::string& c) { return same_number(number, c); });
    if (!found) add(missing.numbers, number);
  }
  for (const auto& identifier : code_spans_in(claim)) {
    if (!contains_identifier(cited, identifier)) add(missing.identifiers, "`" + identifier + "`");
  }
  return missing;
}

}  // namespace headway::knowledge
