#pragma once
// Strict parsing of agents' answers. Each parser returns what it found or a one-line reason why
// the answer is malformed (which the caller records, and may retry the request on).
//
// Fenced code blocks (used by extract_code and parse_rule):
//   - a fence is a line that, after optional spaces and tabs, starts with at least three
//     backticks or at least three tildes;
//   - an opening fence may carry an info string after the fence characters; its first word,
//     lowercased, is the block's language tag (a backtick fence whose info string holds a
//     backtick is not a fence);
//   - the block closes at the first later line that is a fence of the same character, at least
//     as long as the opening one, with nothing but spaces and tabs after it; lines in between
//     (other fences included) are the block's body, byte for byte, each with its newline;
//   - an opening fence that never closes makes the answer truncated.
#include <string>
#include <string_view>

namespace headway::agents {

struct ParsedCode {
  std::string code;       // the file's text, when ok()
  std::string language;   // the block's tag, lowercased; empty for an untagged or unfenced file
  std::string malformed;  // why the answer holds no usable code; empty when ok()
  bool ok() const { return malformed.empty(); }
};

// The one source file an answer holds:
//   - exactly one complete fenced block: its body;
//   - several: the one tagged c, cpp, c++, cc or cxx when exactly one is so tagged, else
//     malformed "N code blocks, expected one";
//   - an opening fence with no closing fence anywhere: malformed "truncated code block (no
//     closing fence)";
//   - no fence at all: the whole text, when its first non-blank line starts with "//", "/*" or
//     "#" (#include, #pragma, ...), else malformed "no code block";
//   - a chosen block (or text) that is empty or only whitespace: malformed "empty code block".
ParsedCode extract_code(std::string_view text);

struct ParsedVerdict {
  // "fully-supported", "partially-supported", "unsupported" or "contradicted" when ok().
  std::string verdict;
  std::string why;  // empty when the answer gives none
  std::string malformed;
  bool ok() const { return malformed.empty(); }
};

// The citation judge's answer:
//   VERDICT: <fully-supported|partially-supported|unsupported|contradicted>
//   WHY: <free text, which may go on over the following lines>
// Keys are case-insensitive and may be indented; the verdict word is case-insensitive and is
// returned lowercased. Exactly one VERDICT line; at most one WHY line, optional. Every line after
// the WHY line that is not the VERDICT line belongs to the why (trimmed, joined with '\n'). Blank
// lines are ignored; any other line is malformed.
ParsedVerdict parse_verdict(std::string_view text);

struct ParsedRule {      // the fields of knowledge::Rule a miner proposes
  std::string text;      // RULE: the rule's statement, one line (knowledge::Rule::text)
  std::string detector;  // DETECTOR: an ECMAScript regex (knowledge/rule_detector.h)
  std::string evidence;  // EVIDENCE: why the rule holds (a diagnostic, an observation)
  std::string repro;     // the fenced block: a source the toolchain refuses
  std::string malformed;
  bool ok() const { return malformed.empty(); }
};

// The rule miner's answer:
//   RULE: <one-line statement>
//   DETECTOR: <regex>
//   EVIDENCE: <text, which may go on over the following lines>
//   ```cpp
//   <repro source>
//   ```
// Keys are case-insensitive, may be indented, and come in any order, each exactly once, outside
// the code block. RULE and DETECTOR take the rest of their line (trimmed; a detector wrapped in
// one pair of backticks loses them). EVIDENCE's text goes on over the following lines up to the
// next key or fence. Exactly one fenced block, complete and not empty, is the repro. The detector
// must compile and match the repro (knowledge::validate_detector). Blank lines are ignored; a
// line outside these is malformed.
ParsedRule parse_rule(std::string_view text);

}  // namespace headway::agents
