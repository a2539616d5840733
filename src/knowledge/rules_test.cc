// Legality rules mined from real compiler diagnostics into a real workspace database.
#include "knowledge/rules.h"

#include <gtest/gtest.h>

#include "trees/tree_test_support.h"

namespace headway::knowledge {
namespace {

TEST(RulesNormalize, AbstractsPathsPositionsNamesAndNumbers) {
  EXPECT_EQ(normalize_diagnostic(
                "/tmp/x/candidate.cc: In function 'void f()':\n"
                "/tmp/x/candidate.cc:1:12: error: \xE2\x80\x98undefined_thing\xE2\x80\x99"
                " was not declared in this scope\n    1 | void f()\n"),
            "error: '<id>' was not declared in this scope");
  EXPECT_EQ(normalize_diagnostic("a.cc:1:12: error: use of undeclared identifier 'foo'\n"),
            "error: use of undeclared identifier '<id>'");
  EXPECT_EQ(normalize_diagnostic("x.cc:3:1: fatal error: /usr/include/nope.h: No such file\n"),
            "fatal error: <path>: No such file");
  EXPECT_EQ(
      normalize_diagnostic("x.cc:9:2: error: array of 64 elements exceeds 12:34 limit 0x10\n"),
      "error: array of <n> elements exceeds <n> limit <n>");
  EXPECT_EQ(normalize_diagnostic("x.cc:9:2: warning: unused\nno errors here\n"), "");
  EXPECT_EQ(first_error_line("/p/a.cc:1:2: error: redefinition of 'x'\nmore"),
            "error: redefinition of 'x'");
}

TEST(RulesNormalize, StateNamesRoundTrip) {
  for (auto s : {RuleState::kVerified, RuleState::kRewritten, RuleState::kRetired,
                 RuleState::kCarriedUnverified}) {
    EXPECT_EQ(parse_rule_state(to_string(s)), s);
  }
  EXPECT_EQ(to_string(RuleState::kCarriedUnverified), "carried-unverified");
  EXPECT_FALSE(parse_rule_state("verify"));
}

TEST(RulesRecord, SameSignatureAddsEvidenceNotARule) {
  trees::TreeFixture f;
  auto a = record_build_failure(f.ws(), "qkv", 2, "int a = b;",
                                "/t/1.cc:1:9: error: 'b' was not declared in this scope", "tc");
  ASSERT_TRUE(a.ok()) << a.error().message;
  EXPECT_TRUE(a->created);
  auto b = record_build_failure(f.ws(), "qkv", 3, "int c = d;",
                                "/t/2.cc:7:3: error: 'd' was not declared in this scope", "tc");
  ASSERT_TRUE(b.ok());
  EXPECT_FALSE(b->created);
  EXPECT_TRUE(b->new_evidence);
  EXPECT_EQ(b->rule.id, a->rule.id);
  auto again = record_build_failure(f.ws(), "qkv", 3, "int c = d;",
                                    "/t/2.cc:7:3: error: 'd' was not declared in this scope", "tc");
  ASSERT_TRUE(again.ok());
  EXPECT_FALSE(again->new_evidence);
  auto other =
      record_finding(f.ws(), "qkv", 4, "crashed", "qkv/q", "the kernel died of SIGSEGV", "tc");
  ASSERT_TRUE(other.ok());
  EXPECT_TRUE(other->created);
  EXPECT_FALSE(other->rule.repro_hash);
  EXPECT_FALSE(record_build_failure(f.ws(), "qkv", 5, "x", "warning: only", "tc").ok());
  EXPECT_FALSE(record_finding(f.ws(), "qkv", 5, "slower", "qkv/q", "x", "tc").ok());

  const auto rules = list_rules(f.ws());
  ASSERT_EQ(rules.size(), 2u);
  EXPECT_EQ(rules[0].signature, "error: '<id>' was not declared in this scope");
  ASSERT_EQ(rules[0].evidence.size(), 2u);
  EXPECT_EQ(rules[0].evidence[1].node_id, 3);
  ASSERT_TRUE(rules[0].repro_hash);
  EXPECT_EQ(f.ws().artifacts().get(*rules[0].repro_hash), "int a = b;");
  ASSERT_EQ(rules[0].statuses.size(), 1u);
  EXPECT_EQ(rules[0].statuses[0].toolchain, "tc");
  EXPECT_EQ(rules[0].statuses[0].state, RuleState::kVerified);
  EXPECT_EQ(rules[1].signature, "pattern: crashed in qkv/q");
  EXPECT_EQ(rules[1].evidence[0].note, "the kernel died of SIGSEGV");
}

TEST(RulesRecord, AFindingsTextSaysWhatHappenedInAWholeSentence) {
  trees::TreeFixture f;
  ASSERT_TRUE(
      record_finding(f.ws(), "ffn", 2, "incorrect", "ffn/seven_chunks", "out differs", "tc").ok());
  ASSERT_TRUE(record_finding(f.ws(), "ffn", 3, "timed-out", "ffn/slow", "no reply", "tc").ok());
  ASSERT_TRUE(record_finding(f.ws(), "qkv", 4, "crashed", "qkv/q", "SIGSEGV", "tc").ok());
  const auto rules = list_rules(f.ws());
  ASSERT_EQ(rules.size(), 3u);
  EXPECT_EQ(rules[0].text,
            "a pattern that gave incorrect results on the device in ffn/seven_chunks: out differs");
  EXPECT_EQ(rules[1].text, "a pattern that timed out on the device in ffn/slow: no reply");
  EXPECT_EQ(rules[2].text, "a pattern that crashed on the device in qkv/q: SIGSEGV");
}

// Build failures as a tree stores them: the source and the compiler's diagnostics (g++ 12's, as
// the cpu target gave them; the knowledge layer reads them as text).
struct StoredBuildFailure {
  const char* source;
  const char* diagnostics;
};
constexpr StoredBuildFailure kStoredBuildFailures[] = {
    {"void f() { undefined_a(1); }\n",
     "/b/tmp-1/candidate.cc: In function 'void f()':\n"
     "/b/tmp-1/candidate.cc:1:12: error: 'undefined_a' was not declared in this scope\n"
     "    1 | void f() { undefined_a(1); }\n"
     "      |            ^~~~~~~~~~~\n"},
    {"void g() { undefined_b(2); }\n",
     "/b/tmp-2/candidate.cc: In function 'void g()':\n"
     "/b/tmp-2/candidate.cc:1:12: error: 'undefined_b' was not declared in this scope\n"
     "    1 | void g() { undefined_b(2); }\n"
     "      |            ^~~~~~~~~~~\n"},
    {"int x = 1;\nint x = 2;\n",
     "/b/tmp-3/candidate.cc:2:5: error: redefinition of 'int x'\n"
     "    2 | int x = 2;\n"
     "      |     ^\n"
     "/b/tmp-3/candidate.cc:1:5: note: 'int x' previously defined here\n"
     "    1 | int x = 1;\n"
     "      |     ^\n"},
};

TEST(RulesMine, RecordsFailedNodesOfARealTreeOnce) {
  trees::TreeFixture f;
  const std::string toolchain = "cpu:g++ 12 (recorded)";
  for (const auto& failure : kStoredBuildFailures) {
    trees::NewNode n;
    n.design = "broken";
    n.source = failure.source;
    auto added = f.tree().add(n);
    ASSERT_TRUE(added.ok());
    ASSERT_TRUE(f.tree()
                    .set_status(added->node.id, trees::NodeStatus::kBuildFailed, "does not build",
                                {{"diagnostics", failure.diagnostics}, {"toolchain", toolchain}})
                    .ok());
  }
  const auto bad = f.add(trees::NodeKind::kDesign, std::nullopt, "wrong");
  ASSERT_TRUE(f.tree()
                  .set_status(bad.id, trees::NodeStatus::kIncorrect, "incorrect",
                              {{"check", "incorrect (seed 7): q[12] = 1 but reference 2"}})
                  .ok());
  f.add(trees::NodeKind::kDesign, std::nullopt, "fine");  // proposed: not a failure

  auto mined = mine_rules_from_tree(f.ws(), "qkv");
  ASSERT_TRUE(mined.ok()) << mined.error().message;
  EXPECT_EQ(mined->scanned, 4);
  EXPECT_EQ(mined->new_rules, 3);  // two undeclared names share one rule
  EXPECT_EQ(mined->new_evidence, 4);
  const auto rules = list_rules(f.ws());
  ASSERT_EQ(rules.size(), 3u);
  EXPECT_EQ(rules[0].signature, "error: '<id>' was not declared in this scope");
  EXPECT_EQ(rules[0].evidence.size(), 2u);
  EXPECT_EQ(rules[0].statuses.at(0).toolchain, toolchain);
  EXPECT_EQ(rules[1].signature, "error: redefinition of '<id>'");
  EXPECT_EQ(rules[2].signature, "pattern: incorrect in qkv/q");

  auto again = mine_rules_from_tree(f.ws(), "qkv");
  ASSERT_TRUE(again.ok());
  EXPECT_EQ(again->new_rules, 0);
  EXPECT_EQ(again->new_evidence, 0);
  EXPECT_FALSE(mine_rules_from_tree(f.ws(), "nope").ok());
}

}  // namespace
}  // namespace headway::knowledge
