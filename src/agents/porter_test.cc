#include "agents/porter.h"

#include <fmt/format.h>
#include <gtest/gtest.h>

#include "agents/agent_test_support.h"
#include "agents/replay_agent.h"
#include "store/test_temp_dir.h"
#include "targets/registry/registry.h"

namespace headway::agents {
namespace {

class PorterTest : public ::testing::Test {
 protected:
  void SetUp() override {
    ws.emplace(store::Workspace::create(dir.path() / "ws").value());
    target = targets::make_target("cpu");
  }
  std::filesystem::path transcript(const std::vector<nlohmann::json>& entries) {
    return testing::write_transcript(dir.path() / "t.jsonl", entries);
  }
  store::TestTempDir dir;
  std::optional<store::Workspace> ws;
  std::unique_ptr<targets::Target> target;
};

TEST_F(PorterTest, AnAnswerBecomesAPortAndTheCallIsLinkedToItsNode) {
  ReplayAgent agent(
      transcript({{{"role", "porter"},
                   {"model", "p-1"},
                   {"response", "WHY: portable intrinsic\n```cpp\nint ported;\n```"}}}));
  AgentLedger ledger(*ws, agent);
  const auto port =
      agent_porter(ledger, *target, "")("qkv", "int broken;\n", "does not build: error: x");
  ASSERT_TRUE(port);
  EXPECT_EQ(port->source, "int ported;\n");
  EXPECT_EQ(port->proposer, "replay:p-1 porter");
  ASSERT_TRUE(port->agent_call);
  // The prompt names the failure and carries the broken source.
  // (A statement left open would keep this connection's view of the database from before the
  // ledger's writes below: the ledger stores through a connection of its own.)
  const auto prompt = ws->artifacts().get(ws->db().query_text(
      fmt::format("SELECT prompt_hash FROM agent_calls WHERE id = {}", *port->agent_call)));
  ASSERT_TRUE(prompt);
  EXPECT_NE(prompt->find("does not build: error: x"), std::string::npos);
  EXPECT_NE(prompt->find("int broken;"), std::string::npos);

  testing::insert_test_node(*ws, "qkv", 2, "variant", "proposed");
  record_port(ledger)(2, *port->agent_call, false);
  EXPECT_EQ(ws->db().query_text("SELECT outcome FROM agent_calls"), "candidate");
  EXPECT_EQ(ws->db().query_int64("SELECT call_id FROM node_agent_calls WHERE node_id = 2"),
            *port->agent_call);
  // A port whose code an earlier node has is a duplicate, and the node is not its call's.
  ws->db().exec("DELETE FROM node_agent_calls");
  record_port(ledger)(2, *port->agent_call, true);
  EXPECT_EQ(ws->db().query_text("SELECT outcome FROM agent_calls"), "duplicate");
  EXPECT_EQ(ws->db().query_int64("SELECT COUNT(*) FROM node_agent_calls"), 0);
}

TEST_F(PorterTest, MalformedAnswersAndFailedCallsGiveNoPort) {
  ReplayAgent agent(
      transcript({{{"role", "porter"}, {"response", "Just change the intrinsic."}},
                  {{"role", "porter"}, {"error", "timeout"}, {"message", "no answer in 300 s"}}}));
  AgentLedger ledger(*ws, agent);
  std::vector<std::string> log;
  const auto porter =
      agent_porter(ledger, *target, "", [&log](const std::string& l) { log.push_back(l); });
  EXPECT_FALSE(porter("qkv", "int broken;\n", "why"));
  EXPECT_FALSE(porter("qkv", "int broken;\n", "why"));
  ASSERT_EQ(log.size(), 2u);
  EXPECT_NE(log[0].find("malformed: no code block"), std::string::npos) << log[0];
  EXPECT_NE(log[1].find("no answer in 300 s"), std::string::npos) << log[1];
  EXPECT_EQ(ws->db().query_text("SELECT group_concat(outcome, ',') FROM agent_calls"),
            "malformed,error:timeout");
}

}  // namespace
}  // namespace headway::agents
