#include "agents/response_parse.h"

#include <gtest/gtest.h>

#include <string>

namespace headway::agents {
namespace {

// extract_code

TEST(ResponseParseCode, OneFencedBlock) {
  ParsedCode p =
      extract_code("Here is the kernel:\n\n```cpp\n#include <x>\nint f();\n```\nDone.\n");
  ASSERT_TRUE(p.ok()) << p.malformed;
  EXPECT_EQ(p.code, "#include <x>\nint f();\n");
  EXPECT_EQ(p.language, "cpp");
}

TEST(ResponseParseCode, TildesUntaggedCrlfAndLongerFences) {
  ParsedCode tildes = extract_code("~~~\nint a;\n~~~");
  ASSERT_TRUE(tildes.ok()) << tildes.malformed;
  EXPECT_EQ(tildes.code, "int a;\n");
  EXPECT_EQ(tildes.language, "");

  ParsedCode crlf = extract_code("```C++ title\r\nint b;\r\n```\r\n");
  ASSERT_TRUE(crlf.ok()) << crlf.malformed;
  EXPECT_EQ(crlf.code, "int b;\r\n");
  EXPECT_EQ(crlf.language, "c++");

  // A four-backtick block holds a three-backtick fence as body; a tilde line does not close it.
  ParsedCode nested = extract_code("````cpp\n// ```\n```md\nx\n```\n~~~\n````\n");
  ASSERT_TRUE(nested.ok()) << nested.malformed;
  EXPECT_EQ(nested.code, "// ```\n```md\nx\n```\n~~~\n");

  // Indented fences (inside a list) count.
  ParsedCode indented = extract_code("1. The file:\n   ```cc\n   int c;\n   ```\n");
  ASSERT_TRUE(indented.ok()) << indented.malformed;
  EXPECT_EQ(indented.code, "   int c;\n");
}

TEST(ResponseParseCode, SeveralBlocksPickTheOneCppBlock) {
  ParsedCode p = extract_code(
      "Build with:\n```sh\nmake\n```\nThe kernel:\n```cxx\nint k;\n```\nOutput:\n```\nok\n```\n");
  ASSERT_TRUE(p.ok()) << p.malformed;
  EXPECT_EQ(p.code, "int k;\n");
  EXPECT_EQ(p.language, "cxx");
}

TEST(ResponseParseCode, TwoUntaggedBlocksAreMalformed) {
  ParsedCode p = extract_code("```\nint a;\n```\nor\n```\nint b;\n```\n");
  EXPECT_FALSE(p.ok());
  EXPECT_EQ(p.malformed, "2 code blocks, expected one");
}

TEST(ResponseParseCode, TwoCppBlocksAreMalformed) {
  ParsedCode p = extract_code("```cpp\nint a;\n```\n```c\nint b;\n```\n```sh\nx\n```\n");
  EXPECT_EQ(p.malformed, "3 code blocks, expected one");
}

TEST(ResponseParseCode, TruncatedFences) {
  EXPECT_EQ(extract_code("```cpp\nint a;\nint b").malformed,
            "truncated code block (no closing fence)");
  // A complete block followed by one that was cut off: the answer was cut off.
  EXPECT_EQ(extract_code("```cpp\nint a;\n```\n```cpp\nint b;").malformed,
            "truncated code block (no closing fence)");
  // A closing fence must be as long as the opening one, of the same character, with no tag.
  EXPECT_EQ(extract_code("````cpp\nint a;\n```\n").malformed,
            "truncated code block (no closing fence)");
  EXPECT_EQ(extract_code("```cpp\nint a;\n~~~\n").malformed,
            "truncated code block (no closing fence)");
  EXPECT_EQ(extract_code("```cpp\nint a;\n```cpp\n").malformed,
            "truncated code block (no closing fence)");
}

TEST(ResponseParseCode, ProseOnlyIsMalformed) {
  EXPECT_EQ(extract_code("I cannot make this faster without more information.").malformed,
            "no code block");
  EXPECT_EQ(extract_code("").malformed, "no code block");
  EXPECT_EQ(extract_code("  \n\n").malformed, "no code block");
  // Inline code is not a fence.
  EXPECT_EQ(extract_code("```int a;``` is inline").malformed, "no code block");
}

TEST(ResponseParseCode, AnUnfencedFileIsTakenWhenItLooksLikeOne) {
  for (const std::string text : {"\n// kernel\nint a;\n", "/* x */\nint a;\n",
                                 "#include <immintrin.h>\nint a;\n", "  #pragma once\n"}) {
    ParsedCode p = extract_code(text);
    ASSERT_TRUE(p.ok()) << text << ": " << p.malformed;
    EXPECT_EQ(p.code, text);
    EXPECT_EQ(p.language, "");
  }
  EXPECT_EQ(extract_code("int a;\n// comment\n").malformed, "no code block");
}

TEST(ResponseParseCode, EmptyBlockIsMalformed) {
  EXPECT_EQ(extract_code("```cpp\n```\n").malformed, "empty code block");
  EXPECT_EQ(extract_code("```cpp\n  \n\n```\n").malformed, "empty code block");
  // The one C++ block among several is empty.
  EXPECT_EQ(extract_code("```cpp\n```\n```sh\nmake\n```\n").malformed, "empty code block");
}

// parse_verdict

TEST(ResponseParseVerdict, VerdictAndWhy) {
  ParsedVerdict p = parse_verdict(
      "VERDICT: partially-supported\nWHY: the page gives 32 KiB,\n"
      "  not 48 KiB.\n");
  ASSERT_TRUE(p.ok()) << p.malformed;
  EXPECT_EQ(p.verdict, "partially-supported");
  EXPECT_EQ(p.why, "the page gives 32 KiB,\nnot 48 KiB.");
}

TEST(ResponseParseVerdict, CaseInsensitiveKeysAndWordsAnyOrder) {
  ParsedVerdict p = parse_verdict("\n  why : It says so.\n\nverdict:Fully-Supported\n");
  ASSERT_TRUE(p.ok()) << p.malformed;
  EXPECT_EQ(p.verdict, "fully-supported");
  EXPECT_EQ(p.why, "It says so.");
  for (const std::string word : {"unsupported", "CONTRADICTED"}) {
    ParsedVerdict v = parse_verdict("VERDICT: " + word);
    ASSERT_TRUE(v.ok()) << v.malformed;
    EXPECT_EQ(v.why, "");
  }
}

TEST(ResponseParseVerdict, MissingVerdict) {
  EXPECT_EQ(parse_verdict("WHY: no idea").malformed, "no VERDICT line");
  EXPECT_EQ(parse_verdict("").malformed, "no VERDICT line");
}

TEST(ResponseParseVerdict, TwoVerdictLines) {
  EXPECT_EQ(parse_verdict("VERDICT: unsupported\nVERDICT: contradicted\n").malformed,
            "2 VERDICT lines, expected one");
}

TEST(ResponseParseVerdict, UnknownVerdictWord) {
  EXPECT_EQ(parse_verdict("VERDICT: supported").malformed,
            "unknown verdict \"supported\" (expected fully-supported, partially-supported, "
            "unsupported or contradicted)");
  EXPECT_FALSE(parse_verdict("VERDICT:").ok());
  EXPECT_FALSE(parse_verdict("VERDICT: unsupported.").ok());
}

TEST(ResponseParseVerdict, OtherTextIsMalformed) {
  EXPECT_EQ(parse_verdict("Let me think.\nVERDICT: unsupported\n").malformed,
            "unexpected line 1: \"Let me think.\"");
  EXPECT_EQ(parse_verdict("**VERDICT:** unsupported").malformed,
            "unexpected line 1: \"**VERDICT:** unsupported\"");
  EXPECT_EQ(parse_verdict("VERDICT: unsupported\nWHY: a\nWHY: b\n").malformed,
            "more than one WHY line");
  EXPECT_EQ(parse_verdict("VERDICTS: unsupported").malformed,
            "unexpected line 1: \"VERDICTS: unsupported\"");
}

// parse_rule

const char* const kRule =
    "RULE: this GCC has no omp.h\n"
    "DETECTOR: #\\s*include\\s*<omp\\.h>\n"
    "EVIDENCE: fatal error: omp.h: No such file or directory\n"
    "  (every candidate including it failed)\n"
    "```cpp\n#include <omp.h>\nint main() {}\n```\n";

TEST(ResponseParseRule, AllFields) {
  ParsedRule p = parse_rule(kRule);
  ASSERT_TRUE(p.ok()) << p.malformed;
  EXPECT_EQ(p.text, "this GCC has no omp.h");
  EXPECT_EQ(p.detector, "#\\s*include\\s*<omp\\.h>");
  EXPECT_EQ(p.evidence,
            "fatal error: omp.h: No such file or directory\n(every candidate including it failed)");
  EXPECT_EQ(p.repro, "#include <omp.h>\nint main() {}\n");
}

TEST(ResponseParseRule, AnyOrderBackticksAndCase) {
  ParsedRule p = parse_rule(
      "```c\n__m512 x = _mm512_setzero_ps();\n```\n"
      "evidence: target specific option mismatch\n"
      "detector: `\\b_mm512_setzero_ps\\b`\n"
      "Rule: no AVX-512 without -mavx512f\n");
  ASSERT_TRUE(p.ok()) << p.malformed;
  EXPECT_EQ(p.detector, "\\b_mm512_setzero_ps\\b");
  EXPECT_EQ(p.evidence, "target specific option mismatch");
}

TEST(ResponseParseRule, MissingFields) {
  EXPECT_EQ(parse_rule("RULE: r\nEVIDENCE: e\n```cpp\nint a;\n```\n").malformed,
            "no DETECTOR line");
  EXPECT_EQ(parse_rule("DETECTOR: a\nEVIDENCE: e\n```cpp\nint a;\n```\n").malformed,
            "no RULE line");
  EXPECT_EQ(parse_rule("RULE: r\nDETECTOR: a\n```cpp\nint a;\n```\n").malformed,
            "no EVIDENCE line");
  EXPECT_EQ(parse_rule("RULE: r\nDETECTOR: a\nEVIDENCE: e\n").malformed,
            "no code block (the repro)");
  EXPECT_EQ(parse_rule("RULE:\nDETECTOR: a\nEVIDENCE: e\n```cpp\nint a;\n```\n").malformed,
            "empty RULE");
  EXPECT_EQ(parse_rule("RULE: r\nDETECTOR: a\nEVIDENCE:\n```cpp\nint a;\n```\n").malformed,
            "empty EVIDENCE");
  EXPECT_EQ(parse_rule("RULE: r\nDETECTOR: a\nEVIDENCE: e\n```cpp\n\n```\n").malformed,
            "empty code block (the repro)");
  EXPECT_EQ(parse_rule("RULE: r\nDETECTOR:\nEVIDENCE: e\n```cpp\nint a;\n```\n").malformed,
            "a detector cannot be empty");
}

TEST(ResponseParseRule, InvalidOrNonMatchingDetector) {
  ParsedRule bad = parse_rule("RULE: r\nDETECTOR: (unclosed\nEVIDENCE: e\n```cpp\nint a;\n```\n");
  EXPECT_FALSE(bad.ok());
  EXPECT_NE(bad.malformed.find("is not a regular expression"), std::string::npos) << bad.malformed;
  ParsedRule miss = parse_rule("RULE: r\nDETECTOR: \\bomp\\b\nEVIDENCE: e\n```cpp\nint a;\n```\n");
  EXPECT_NE(miss.malformed.find("does not match the rule's repro"), std::string::npos)
      << miss.malformed;
}

TEST(ResponseParseRule, StructuralProblems) {
  EXPECT_EQ(parse_rule(std::string(kRule) + "RULE: again\n").malformed, "more than one RULE line");
  EXPECT_EQ(parse_rule(std::string(kRule) + "```\nint b;\n```\n").malformed,
            "2 code blocks, expected one (the repro)");
  EXPECT_EQ(parse_rule("RULE: r\nDETECTOR: a\nEVIDENCE: e\n```cpp\nint a;\n").malformed,
            "truncated code block (no closing fence)");
  EXPECT_EQ(parse_rule(std::string("Here is the rule.\n") + kRule).malformed,
            "unexpected line 1: \"Here is the rule.\"");
  // Text after the code block no longer continues EVIDENCE.
  EXPECT_EQ(parse_rule(std::string(kRule) + "Hope this helps!\n").malformed,
            "unexpected line 9: \"Hope this helps!\"");
}

}  // namespace
}  // namespace headway::agents
