#include "agents/rule_miner.h"

#include <gtest/gtest.h>

#include "agents/agent_test_support.h"
#include "agents/replay_agent.h"
#include "knowledge/rules.h"
#include "store/test_temp_dir.h"
#include "targets/registry/registry.h"

namespace headway::agents {
namespace {

constexpr const char* kSource = "int f() { return hw_no_such_function(2); }\n";

class RuleMinerTest : public ::testing::Test {
 protected:
  void SetUp() override {
    ws.emplace(store::Workspace::create(dir.path() / "ws").value());
    target = targets::make_target("cpu");
    testing::insert_test_node(*ws, "qkv", 2, "design", "build-failed");
    auto recorded = knowledge::record_build_failure(
        *ws, "qkv", 2, kSource,
        "candidate.cc:1:18: error: 'hw_no_such_function' was not declared in this scope", "gcc-12");
    ASSERT_TRUE(recorded.ok()) << recorded.error().message;
    rule = recorded->rule.id;
    ASSERT_TRUE(
        knowledge::set_rule_detector(*ws, rule, std::nullopt).ok());  // as if none was derived
  }
  std::filesystem::path transcript(const std::vector<nlohmann::json>& entries) {
    return testing::write_transcript(dir.path() / "t.jsonl", entries);
  }
  std::optional<std::string> detector() { return knowledge::list_rules(*ws).front().detector; }
  store::TestTempDir dir;
  std::optional<store::Workspace> ws;
  std::unique_ptr<targets::Target> target;
  int64_t rule = 0;
};

TEST_F(RuleMinerTest, ADetectorThatMatchesTheReproIsSetAndEachRuleIsAskedOnce) {
  ReplayAgent agent(transcript(
      {{{"role", "rule-miner"},
        {"response",
         "RULE: hw_no_such_function does not exist\nDETECTOR: `hw_no_such_function\\s*\\(`\n"
         "EVIDENCE: the compiler says it was not declared\n```cpp\n" +
             std::string(kSource) + "```\n"}}}));
  AgentLedger ledger(*ws, agent);
  AgentRuleMiner miner(ledger, *ws, *target);
  EXPECT_EQ(miner.mine(), 1);
  EXPECT_EQ(detector(), "hw_no_such_function\\s*\\(");
  EXPECT_EQ(ws->db().query_text("SELECT outcome FROM agent_calls"), "detector");
  EXPECT_EQ(miner.mine(), 0);
  EXPECT_EQ(ws->db().query_int64("SELECT COUNT(*) FROM agent_calls"), 1) << "asked once per rule";
}

TEST_F(RuleMinerTest, ADetectorThatMissesTheReproOrAMalformedAnswerSetsNothing) {
  ReplayAgent agent(transcript({{{"role", "rule-miner"},
                                 {"response",
                                  "RULE: x\nDETECTOR: never_in_the_repro\nEVIDENCE: "
                                  "e\n```cpp\nnever_in_the_repro\n```\n"}}}));
  AgentLedger ledger(*ws, agent);
  AgentRuleMiner miner(ledger, *ws, *target);
  EXPECT_EQ(miner.mine(), 0);
  EXPECT_FALSE(detector());
  EXPECT_EQ(ws->db().query_text("SELECT outcome FROM agent_calls"), "rejected");

  ReplayAgent prose(transcript(
      {{{"role", "rule-miner"}, {"response", "Do not call functions that do not exist."}}}));
  AgentLedger ledger2(*ws, prose);
  AgentRuleMiner miner2(ledger2, *ws, *target);
  EXPECT_EQ(miner2.mine(), 0);
  EXPECT_EQ(ws->db().query_text("SELECT outcome FROM agent_calls ORDER BY id DESC LIMIT 1"),
            "malformed");
}

}  // namespace
}  // namespace headway::agents
