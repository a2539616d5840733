#include "knowledge/claim_judge.h"

#include <gtest/gtest.h>

#include <map>

#include "knowledge/test_files.h"
#include "store/test_temp_dir.h"

namespace headway::knowledge {
namespace {

// Says what it was told for claims containing a word, and records what it saw.
class FakeJudge : public ClaimJudge {
 public:
  FakeJudge(std::string name, std::map<std::string, Support> by_word)
      : name_(std::move(name)), by_word_(std::move(by_word)) {}
  std::string name() const override { return name_; }
  Judgement judge(const std::string& claim, const std::string& cited) override {
    seen.emplace_back(claim, cited);
    for (const auto& [word, support] : by_word_) {
      if (claim.find(word) != std::string::npos) return {support, "because " + word};
    }
    return {Support::kFullySupported, "matches"};
  }
  std::vector<std::pair<std::string, std::string>> seen;

 private:
  std::string name_;
  std::map<std::string, Support> by_word_;
};

class CitationJudge : public ::testing::Test {
 protected:
  void SetUp() override {
    write_test_file(tmp_.path(), "a.md",
                    "The tile holds 448 bytes.\nDMA moves 64 bytes.\nLanes: 32.\n");
    auto c = read_corpus(tmp_.path());
    ASSERT_TRUE(c.ok());
    corpus_ = std::move(c).value();
  }
  store::TestTempDir tmp_;
  Corpus corpus_;
};

TEST_F(CitationJudge, NoJudgeConfiguredIsSkipped) {
  const AgentPasses passes = run_agent_passes(parse_summary("- Tile 448 [a.md:L1]\n"), corpus_, {});
  EXPECT_TRUE(passes.skipped());
  EXPECT_TRUE(passes.claims.empty());
  EXPECT_EQ(passes.summary_line(), "agent passes: skipped (no agent configured)");
}

TEST_F(CitationJudge, TwoIndependentJudgesAndTheWeakestWins) {
  FakeJudge first("first", {{"DMA", Support::kPartiallySupported}});
  FakeJudge second("second",
                   {{"DMA", Support::kFullySupported}, {"Lanes", Support::kContradicted}});
  const SummaryMarkup summary = parse_summary(
      "- Tile 448 [a.md:L1]\n"
      "- DMA 64 [a.md:L2 \"moves 64\"]\n"
      "- Lanes 16 [a.md:L3]\n"
      "- Gone [b.md:L1]\n");
  const AgentPasses passes = run_agent_passes(summary, corpus_, {&first, &second});
  EXPECT_EQ(passes.judges, (std::vector<std::string>{"first", "second"}));
  ASSERT_EQ(passes.claims.size(), 3u);
  EXPECT_EQ(passes.not_judged, 1) << "the claim with a broken citation is left to the script pass";
  EXPECT_EQ(passes.claims[0].combined, Support::kFullySupported);
  EXPECT_EQ(passes.claims[1].combined, Support::kPartiallySupported);
  EXPECT_EQ(passes.claims[1].judgements[0].why, "because DMA");
  EXPECT_EQ(passes.claims[2].combined, Support::kContradicted);
  EXPECT_EQ(passes.claims[2].cites, std::vector<std::string>{"[a.md:L3]"});
  ASSERT_EQ(first.seen.size(), 3u);
  EXPECT_EQ(first.seen[1].first, "DMA 64");
  EXPECT_EQ(first.seen[1].second, "a.md:L2\nDMA moves 64 bytes.\n");
  EXPECT_EQ(second.seen, first.seen) << "both judges see the same claim and text, and nothing else";
  EXPECT_EQ(passes.summary_line(),
            "agent passes (first, second): 3 claims: 1 fully-supported, 1 partially-supported, 1 "
            "contradicted; "
            "1 not judged (broken citation)");
}

TEST_F(CitationJudge, CitedTextNamesEachRange) {
  const SummaryMarkup summary = parse_summary("Both [a.md:L1-L2][a.md:L3]\n");
  ASSERT_EQ(summary.claims.size(), 1u);
  EXPECT_EQ(cited_text_for_judges(summary.claims[0], corpus_),
            "a.md:L1-L2\nThe tile holds 448 bytes.\nDMA moves 64 bytes.\na.md:L3\nLanes: 32.\n");
}

}  // namespace
}  // namespace headway::knowledge
