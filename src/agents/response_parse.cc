#include "agents/response_parse.h"

#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <optional>
#include <vector>

#include "common/ascii.h"
#include "knowledge/rule_detector.h"

namespace headway::agents {

namespace {

struct Line {
  std::string_view content;  // without the newline (and a '\r' before it)
  size_t begin = 0;          // offset of the line in the text
};

std::vector<Line> split_lines(std::string_view text) {
  std::vector<Line> lines;
  size_t begin = 0;
  while (begin < text.size()) {
    const size_t newline = text.find('\n', begin);
    const size_t end = newline == std::string_view::npos ? text.size() : newline;
    std::string_view content = text.substr(begin, end - begin);
    if (!content.empty() && content.back() == '\r') content.remove_suffix(1);
    lines.push_back({content, begin});
    begin = end + 1;
  }
  return lines;
}

std::string_view trim(std::string_view s) {
  const size_t first = s.find_first_not_of(" \t\r\n");
  if (first == std::string_view::npos) return {};
  const size_t last = s.find_last_not_of(" \t\r\n");
  return s.substr(first, last - first + 1);
}

bool blank(std::string_view s) { return trim(s).empty(); }

// A line quoted in a message: trimmed, at most 60 bytes.
std::string quoted(std::string_view line) {
  std::string_view t = trim(line);
  if (t.size() <= 60) return fmt::format("\"{}\"", t);
  return fmt::format("\"{}...\"", t.substr(0, 60));
}

struct Fence {
  char ch = '`';
  size_t length = 0;
  std::string_view info;
};

std::optional<Fence> fence_of(std::string_view line) {
  const size_t start = line.find_first_not_of(" \t");
  if (start == std::string_view::npos) return std::nullopt;
  const char ch = line[start];
  if (ch != '`' && ch != '~') return std::nullopt;
  const size_t end = std::min(line.find_first_not_of(ch, start), line.size());
  if (end - start < 3) return std::nullopt;
  const std::string_view info = trim(line.substr(end));
  if (ch == '`' && info.find('`') != std::string_view::npos) return std::nullopt;
  return Fence{ch, end - start, info};
}

struct Block {
  std::string language;
  std::string_view body;
  size_t open_line = 0, close_line = 0;
};

struct Blocks {
  std::vector<Block> blocks;
  bool truncated = false;
};

// The complete block that opens at line `open`, or nullopt when it never closes.
std::optional<Block> block_at(std::string_view text, const std::vector<Line>& lines, size_t open) {
  const Fence opening = *fence_of(lines[open].content);
  for (size_t i = open + 1; i < lines.size(); ++i) {
    const auto fence = fence_of(lines[i].content);
    if (fence && fence->ch == opening.ch && fence->length >= opening.length &&
        fence->info.empty()) {
      Block block;
      const std::string_view info = opening.info;
      block.language = ascii_lower(info.substr(0, info.find_first_of(" \t")));
      const size_t body_begin = lines[open + 1].begin;
      block.body = text.substr(body_begin, lines[i].begin - body_begin);
      block.open_line = open;
      block.close_line = i;
      return block;
    }
  }
  return std::nullopt;
}

Blocks find_blocks(std::string_view text, const std::vector<Line>& lines) {
  Blocks found;
  for (size_t i = 0; i < lines.size(); ++i) {
    if (!fence_of(lines[i].content)) continue;
    auto block = block_at(text, lines, i);
    if (!block) {
      found.truncated = true;
      break;
    }
    i = block->close_line;
    found.blocks.push_back(std::move(*block));
  }
  return found;
}

bool is_cpp_tag(const std::string& tag) {
  static constexpr std::array<std::string_view, 5> kTags = {"c", "cpp", "c++", "cc", "cxx"};
  return std::find(kTags.begin(), kTags.end(), tag) != kTags.end();
}

bool looks_like_source(std::string_view text) {
  for (const Line& line : split_lines(text)) {
    const std::string_view t = trim(line.content);
    if (t.empty()) continue;
    return t.starts_with("//") || t.starts_with("/*") || t.starts_with("#");
  }
  return false;
}

ParsedCode code_or_empty(std::string_view body, std::string language) {
  ParsedCode parsed;
  if (blank(body)) {
    parsed.malformed = "empty code block";
    return parsed;
  }
  parsed.code = body;
  parsed.language = std::move(language);
  return parsed;
}

// The value after "KEY:" when the line (after indentation) is that key, case-insensitively, with
// optional spaces before the colon.
std::optional<std::string_view> key_value(std::string_view line, std::string_view key) {
  const std::string_view t = trim(line);
  if (t.size() < key.size() || ascii_lower(t.substr(0, key.size())) != ascii_lower(key))
    return std::nullopt;
  std::string_view rest = t.substr(key.size());
  rest.remove_prefix(std::min(rest.find_first_not_of(" \t"), rest.size()));
  if (rest.empty() || rest.front() != ':') return std::nullopt;
  return trim(rest.substr(1));
}

std::string join(const std::vector<std::string_view>& parts) {
  std::string out;
  for (std::string_view part : parts) {
    if (!out.empty()) out += '\n';
    out += part;
  }
  return out;
}

}  // namespace

ParsedCode extract_code(std::string_view text) {
  const std::vector<Line> lines = split_lines(text);
  const Blocks found = find_blocks(text, lines);
  ParsedCode parsed;
  if (found.truncated) {
    parsed.malformed = "truncated code block (no closing fence)";
    return parsed;
  }
  if (found.blocks.empty()) {
    if (!looks_like_source(text)) {
      parsed.malformed = "no code block";
      return parsed;
    }
    return code_or_empty(text, "");
  }
  if (found.blocks.size() == 1) {
    return code_or_empty(found.blocks[0].body, found.blocks[0].language);
  }
  const Block* tagged = nullptr;
  int tagged_count = 0;
  for (const Block& block : found.blocks) {
    if (is_cpp_tag(block.language)) {
      tagged = &block;
      ++tagged_count;
    }
  }
  if (tagged_count != 1) {
    parsed.malformed = fmt::format("{} code blocks, expected one", found.blocks.size());
    return parsed;
  }
  return code_or_empty(tagged->body, tagged->language);
}

ParsedVerdict parse_verdict(std::string_view text) {
  static constexpr std::array<std::string_view, 4> kVerdicts = {
      "fully-supported", "partially-supported", "unsupported", "contradicted"};
  ParsedVerdict parsed;
  std::vector<std::string_view> verdicts, why;
  bool in_why = false;
  const std::vector<Line> lines = split_lines(text);
  for (size_t i = 0; i < lines.size(); ++i) {
    const std::string_view line = lines[i].content;
    if (blank(line)) continue;
    if (auto value = key_value(line, "VERDICT")) {
      verdicts.push_back(*value);
    } else if (auto because = key_value(line, "WHY")) {
      if (in_why) {
        parsed.malformed = "more than one WHY line";
        return parsed;
      }
      in_why = true;
      if (!because->empty()) why.push_back(*because);
    } else if (in_why) {
      why.push_back(trim(line));
    } else {
      parsed.malformed = fmt::format("unexpected line {}: {}", i + 1, quoted(line));
      return parsed;
    }
  }
  if (verdicts.size() != 1) {
    parsed.malformed = verdicts.empty()
                           ? "no VERDICT line"
                           : fmt::format("{} VERDICT lines, expected one", verdicts.size());
    return parsed;
  }
  const std::string verdict = ascii_lower(verdicts[0]);
  if (std::find(kVerdicts.begin(), kVerdicts.end(), verdict) == kVerdicts.end()) {
    parsed.malformed = fmt::format(
        "unknown verdict {} (expected fully-supported, partially-supported, unsupported or "
        "contradicted)",
        quoted(verdicts[0]));
    return parsed;
  }
  parsed.verdict = verdict;
  parsed.why = join(why);
  return parsed;
}

ParsedRule parse_rule(std::string_view text) {
  enum Field { kRule, kDetector, kEvidence, kFieldCount };
  static constexpr std::array<std::string_view, kFieldCount> kKeys = {"RULE", "DETECTOR",
                                                                      "EVIDENCE"};
  ParsedRule parsed;
  std::array<std::optional<std::string_view>, kFieldCount> values;
  std::vector<std::string_view> evidence;
  std::vector<Block> blocks;
  bool in_evidence = false;
  const std::vector<Line> lines = split_lines(text);
  for (size_t i = 0; i < lines.size(); ++i) {
    const std::string_view line = lines[i].content;
    if (blank(line)) continue;
    if (fence_of(line)) {
      auto block = block_at(text, lines, i);
      if (!block) {
        parsed.malformed = "truncated code block (no closing fence)";
        return parsed;
      }
      i = block->close_line;
      blocks.push_back(std::move(*block));
      in_evidence = false;
      continue;
    }
    bool keyed = false;
    for (int f = 0; f < kFieldCount; ++f) {
      const auto value = key_value(line, kKeys[f]);
      if (!value) continue;
      if (values[f]) {
        parsed.malformed = fmt::format("more than one {} line", kKeys[f]);
        return parsed;
      }
      values[f] = *value;
      in_evidence = f == kEvidence;
      if (in_evidence && !value->empty()) evidence.push_back(*value);
      keyed = true;
      break;
    }
    if (keyed) continue;
    if (in_evidence) {
      evidence.push_back(trim(line));
      continue;
    }
    parsed.malformed = fmt::format("unexpected line {}: {}", i + 1, quoted(line));
    return parsed;
  }
  for (int f = 0; f < kFieldCount; ++f) {
    if (!values[f]) {
      parsed.malformed = fmt::format("no {} line", kKeys[f]);
      return parsed;
    }
  }
  if (blocks.size() != 1) {
    parsed.malformed = blocks.empty()
                           ? "no code block (the repro)"
                           : fmt::format("{} code blocks, expected one (the repro)", blocks.size());
    return parsed;
  }
  std::string_view detector = *values[kDetector];
  if (detector.size() >= 2 && detector.front() == '`' && detector.back() == '`') {
    detector = detector.substr(1, detector.size() - 2);
  }
  parsed.text = *values[kRule];
  parsed.detector = detector;
  parsed.evidence = join(evidence);
  parsed.repro = blocks[0].body;
  if (parsed.text.empty())
    parsed.malformed = "empty RULE";
  else if (parsed.evidence.empty())
    parsed.malformed = "empty EVIDENCE";
  else if (blank(parsed.repro))
    parsed.malformed = "empty code block (the repro)";
  else if (auto valid = knowledge::validate_detector(parsed.detector, parsed.repro); !valid) {
    parsed.malformed = valid.error().message;
  }
  return parsed;
}

}  // namespace headway::agents
