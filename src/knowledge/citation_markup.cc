#include "knowledge/citation_markup.h"

#include <fmt/format.h>

#include <algorithm>
#include <variant>

#include "common/ascii.h"
#include "knowledge/corpus.h"
#include "knowledge/text_lines.h"

namespace headway::knowledge {

namespace {

constexpr size_t kMaxLineDigits = 12;

bool is_blank(std::string_view s) { return s.find_first_not_of(" \t") == std::string_view::npos; }

std::string_view trim_left(std::string_view s) {
  const size_t start = s.find_first_not_of(" \t");
  return start == std::string_view::npos ? std::string_view{} : s.substr(start);
}

// The character starting at line[p] as a message can quote it: a printable ASCII byte or a whole
// UTF-8 character as written, any other byte as \xNN (so a message about UTF-8 text is UTF-8).
std::string quotable_char_at(std::string_view line, size_t p) {
  const auto byte = static_cast<unsigned char>(line[p]);
  if (byte >= 0x20 && byte < 0x7F) return std::string(1, line[p]);
  const size_t length = byte >= 0xF0 ? 4 : byte >= 0xE0 ? 3 : byte >= 0xC0 ? 2 : 1;
  if (length > 1 && p + length <= line.size() && !not_text_reason(line.substr(p, length)))
    return std::string(line.substr(p, length));
  return fmt::format("\\x{:02X}", byte);
}

enum class BlockKind { kParagraph, kListItem, kSingleLine };

struct NotCitation {};
struct Parsed {
  size_t length = 0;
  Citation citation;
};
struct Bad {
  size_t length = 0;
  std::string why;
};
using Attempt = std::variant<NotCitation, Parsed, Bad>;

// Parses the citation attempt starting at line[i] == '['.
Attempt parse_attempt(std::string_view line, size_t i) {
  size_t k = i + 1;
  while (k < line.size() && line[k] != ':' && line[k] != ']' && line[k] != '[' && line[k] != '"' &&
         line[k] != ' ' && line[k] != '\t') {
    ++k;
  }
  if (k >= line.size() || line[k] != ':' || k == i + 1) return NotCitation{};
  const std::string path(line.substr(i + 1, k - i - 1));
  if (path.find_first_of("./") == std::string::npos) return NotCitation{};
  DocKind kind{};
  const bool doc_path = doc_kind_of(path, &kind);
  const auto at = [&](size_t pos) { return pos < line.size() ? line[pos] : '\0'; };
  if (!doc_path && at(k + 1) != 'L') return NotCitation{};

  size_t p = k + 1;
  const auto to_bracket = [&](std::string why) {
    const size_t close = line.find(']', p);
    if (close == std::string_view::npos)
      return Bad{line.size() - i, "unclosed citation: no ']' on its line"};
    return Bad{close + 1 - i, std::move(why)};
  };
  const auto line_number = [&](size_t& pos, int64_t* out) {
    const size_t start = pos;
    while (is_ascii_digit(at(pos))) ++pos;
    if (pos == start || pos - start > kMaxLineDigits) return false;
    *out = std::stoll(std::string(line.substr(start, pos - start)));
    return true;
  };

  Citation c;
  c.path = path;
  if (at(p) != 'L')
    return to_bracket("expected 'L' and a line number after ':' (write [path:L12])");
  ++p;
  if (!line_number(p, &c.first)) return to_bracket("'L' without a line number");
  c.last = c.first;
  if (at(p) == '-') {
    ++p;
    if (at(p) != 'L') return to_bracket("expected 'L' after '-' (write L12-L18)");
    ++p;
    if (!line_number(p, &c.last)) return to_bracket("'L' without a line number after '-'");
  }
  size_t q = p;
  while (at(q) == ' ' || at(q) == '\t') ++q;
  if (at(q) == '"') {
    const size_t close = line.find('"', q + 1);
    if (close == std::string_view::npos)
      return Bad{line.size() - i, "quote without its closing '\"'"};
    c.quote = std::string(line.substr(q + 1, close - q - 1));
    if (is_blank(*c.quote)) return to_bracket("empty quoted phrase");
    p = close + 1;
    while (at(p) == ' ' || at(p) == '\t') ++p;
  } else {
    p = q;
  }
  if (p >= line.size()) return to_bracket("");  // no ']': reported as unclosed
  if (line[p] != ']') {
    return to_bracket(fmt::format("unexpected '{}' in a citation (expected ']' or a quoted phrase)",
                                  quotable_char_at(line, p)));
  }
  c.text = std::string(line.substr(i, p + 1 - i));
  return Parsed{p + 1 - i, std::move(c)};
}

struct ClaimText {
  std::string text;
  int64_t line = 0;  // 0 when empty
};

// The claim in raw (each byte's summary line in lines): in a paragraph only its last sentence;
// leading punctuation and '|' dropped; whitespace collapsed.
ClaimText finish_claim(const std::string& raw, const std::vector<int64_t>& lines, BlockKind kind) {
  const auto is_space = [](char c) { return c == ' ' || c == '\t'; };
  size_t start = 0;
  const size_t last = raw.find_last_not_of(" \t");
  if (kind == BlockKind::kParagraph && last != std::string::npos) {
    for (size_t p = last; p-- > 0;) {
      if ((raw[p] == '.' || raw[p] == '!' || raw[p] == '?') && is_space(raw[p + 1])) {
        start = p + 1;
        break;
      }
    }
  }
  while (start < raw.size() &&
         std::string_view(".,;:!?)| \t").find(raw[start]) != std::string_view::npos) {
    ++start;
  }
  ClaimText out{collapse_whitespace(std::string_view(raw).substr(start)), 0};
  if (!out.text.empty()) out.line = lines[start];
  return out;
}

class Scanner {
 public:
  explicit Scanner(SummaryMarkup* out) : out_(out) {}

  void start_block(BlockKind kind) {
    end_block();
    kind_ = kind;
  }
  void end_block() {
    group_open_ = false;
    pending_.clear();
    pending_lines_.clear();
  }

  // Scans one line of the current block; `content` starts at 1-based column `column`.
  void scan(std::string_view content, int64_t line, int64_t column) {
    size_t i = 0;
    while (i < content.size()) {
      const char c = content[i];
      if (c == '\\' && i + 1 < content.size()) {
        text(content.substr(i, 2), line);
        i += 2;
        continue;
      }
      if (c == '`') {
        size_t run = 0;
        while (i + run < content.size() && content[i + run] == '`') ++run;
        const size_t close = content.find(content.substr(i, run), i + run);
        const size_t end = close == std::string_view::npos ? i + run : close + run;
        text(content.substr(i, end - i), line);
        i = end;
        continue;
      }
      if (c == '[') {
        const Attempt attempt = parse_attempt(content, i);
        if (const auto* parsed = std::get_if<Parsed>(&attempt)) {
          Citation citation = parsed->citation;
          citation.line = line;
          citation.column = column + static_cast<int64_t>(i);
          cite(std::move(citation));
          i += parsed->length;
          continue;
        }
        if (const auto* bad = std::get_if<Bad>(&attempt)) {
          out_->malformed.push_back({line, column + static_cast<int64_t>(i),
                                     std::string(content.substr(i, bad->length)), bad->why});
          group_open_ = false;
          pending_.clear();
          pending_lines_.clear();
          i += bad->length;
          continue;
        }
      }
      if (group_open_ && (c == ' ' || c == '\t' || c == ',' || c == ';')) {
        ++i;
        continue;
      }
      text(content.substr(i, 1), line);
      ++i;
    }
    pending_ += ' ';
    pending_lines_.push_back(line);
  }

 private:
  void text(std::string_view chars, int64_t line) {
    group_open_ = false;
    pending_.append(chars);
    pending_lines_.insert(pending_lines_.end(), chars.size(), line);
  }

  void cite(Citation citation) {
    if (!group_open_) {
      Claim claim;
      ClaimText text = finish_claim(pending_, pending_lines_, kind_);
      claim.text = std::move(text.text);
      claim.line = text.line == 0 ? citation.line : text.line;
      out_->claims.push_back(std::move(claim));
      pending_.clear();
      pending_lines_.clear();
      group_open_ = true;
    }
    out_->claims.back().citations.push_back(std::move(citation));
  }

  SummaryMarkup* out_;
  BlockKind kind_ = BlockKind::kParagraph;
  std::string pending_;
  std::vector<int64_t> pending_lines_;  // the summary line of each byte of pending_
  bool group_open_ = false;
};

// The length of a list marker ("- ", "* ", "+ ", "12. ", "3) ") at the start of s; 0 if none.
size_t list_marker_length(std::string_view s) {
  if (s.size() >= 2 && (s[0] == '-' || s[0] == '*' || s[0] == '+') && (s[1] == ' ' || s[1] == '\t'))
    return 2;
  size_t k = 0;
  while (k < s.size() && is_ascii_digit(s[k])) ++k;
  if (k > 0 && k <= 9 && k + 1 < s.size() && (s[k] == '.' || s[k] == ')') &&
      (s[k + 1] == ' ' || s[k + 1] == '\t')) {
    return k + 2;
  }
  if (s.size() == 1 && (s[0] == '-' || s[0] == '*' || s[0] == '+')) return 1;
  return 0;
}

}  // namespace

size_t SummaryMarkup::citation_count() const {
  size_t n = 0;
  for (const auto& claim : claims) n += claim.citations.size();
  return n;
}

SummaryMarkup parse_summary(std::string_view markdown) {
  SummaryMarkup out;
  Scanner scanner(&out);
  std::string fence;
  bool in_block = false;
  const std::vector<std::string> lines = split_lines(markdown);
  for (size_t n = 0; n < lines.size(); ++n) {
    const std::string_view whole = lines[n];
    const auto line = static_cast<int64_t>(n + 1);
    std::string_view rest = trim_left(whole);
    if (!fence.empty()) {
      if (rest.starts_with(fence)) fence.clear();
      continue;
    }
    if (rest.starts_with("```") || rest.starts_with("~~~")) {
      fence = std::string(rest.substr(0, 3));
      scanner.end_block();
      in_block = false;
      continue;
    }
    while (rest.starts_with(">")) rest = trim_left(rest.substr(1));
    if (rest.empty()) {
      scanner.end_block();
      in_block = false;
      continue;
    }
    if (rest.starts_with("#")) {
      scanner.start_block(BlockKind::kSingleLine);
      in_block = false;
      rest = trim_left(rest.substr(std::min(rest.find_first_not_of('#'), rest.size())));
    } else if (rest.starts_with("|")) {
      scanner.start_block(BlockKind::kSingleLine);
      in_block = false;
    } else if (const size_t marker = list_marker_length(rest); marker > 0) {
      scanner.start_block(BlockKind::kListItem);
      in_block = true;
      rest = trim_left(rest.substr(marker));
    } else if (!in_block) {
      scanner.start_block(BlockKind::kParagraph);
      in_block = true;
    }
    const auto column = static_cast<int64_t>(rest.data() - whole.data()) + 1;
    scanner.scan(rest, line, column);
  }
  return out;
}

}  // namespace headway::knowledge
