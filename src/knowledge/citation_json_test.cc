#include "knowledge/citation_json.h"

#include <gtest/gtest.h>

namespace headway::knowledge {
namespace {

TEST(CitationJsonTest, CarriesEveryCitationAndTheNonZeroTotals) {
  CitationReport report;
  report.citations.push_back({3, 7, "[a.md:L2]", TextVerdict::kSupportedByText, "", "a claim"});
  report.citations.push_back(
      {4, 1, "[b.md:L9]", TextVerdict::kBroken, "b.md has 2 lines", "other"});
  const auto citations = citations_json(report);
  ASSERT_EQ(citations.size(), 2u);
  EXPECT_EQ(citations[1]["line"], 4);
  EXPECT_EQ(citations[1]["column"], 1);
  EXPECT_EQ(citations[1]["cite"], "[b.md:L9]");
  EXPECT_EQ(citations[1]["verdict"], "broken");
  EXPECT_EQ(citations[1]["why"], "b.md has 2 lines");
  EXPECT_EQ(citations[0]["claim"], "a claim");
  EXPECT_EQ(totals_json(report), nlohmann::json({{"supported-by-text", 1}, {"broken", 1}}));
}

TEST(CitationJsonTest, AgentPassesAreSkippedOfflineAndListEachJudgeOtherwise) {
  EXPECT_EQ(agent_passes_json(AgentPasses{})["status"], "skipped");
  AgentPasses passes;
  passes.judges = {"j1", "j2"};
  JudgedClaim claim;
  claim.line = 5;
  claim.claim = "c";
  claim.cites = {"[a.md:L1]"};
  claim.judgements = {{Support::kFullySupported, "ok"}, {Support::kContradicted, "says 32"}};
  claim.combined = Support::kContradicted;
  passes.claims.push_back(claim);
  const auto j = agent_passes_json(passes);
  EXPECT_EQ(j["status"], "ran");
  EXPECT_EQ(j["claims"][0]["combined"], "contradicted");
  EXPECT_EQ(j["claims"][0]["judgements"][1]["judge"], "j2");
  EXPECT_EQ(j["claims"][0]["judgements"][1]["why"], "says 32");
  EXPECT_EQ(j["totals"], nlohmann::json({{"contradicted", 1}}));
}

}  // namespace
}  // namespace headway::knowledge
