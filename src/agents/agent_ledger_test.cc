#include "agents/agent_ledger.h"

#include <fmt/format.h>
#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <functional>
#include <thread>

#include "store/test_temp_dir.h"

namespace headway::agents {
namespace {

// A fake at the provider seam: answers with `answer`, or throws what `fail` returns.
class FakeAgent final : public Agent {
 public:
  std::string provider() const override { return "fake"; }
  std::string model() const override { return "fake-1"; }
  AgentReply complete(const AgentRequest& request) override {
    const int now = ++in_flight;
    for (int seen = max_in_flight.load();
         now > seen && !max_in_flight.compare_exchange_weak(seen, now);) {
    }
    if (delay.count() > 0) std::this_thread::sleep_for(delay);
    --in_flight;
    if (fail) fail(request);
    AgentReply r;
    r.text = "answer to " + request.prompt;
    r.model = "fake-1-2026";
    r.input_tokens = 1000;
    r.output_tokens = 500;
    r.latency_s = 0.25;
    return r;
  }
  std::function<void(const AgentRequest&)> fail;
  std::chrono::milliseconds delay{0};
  std::atomic<int> in_flight{0};
  std::atomic<int> max_in_flight{0};
};

AgentBudget budget_of_calls(int64_t n) {
  AgentBudget b;
  b.max_calls = n;
  return b;
}
AgentBudget budget_of_tokens(int64_t n) {
  AgentBudget b;
  b.max_tokens = n;
  return b;
}
AgentBudget budget_of_cost(double usd) {
  AgentBudget b;
  b.max_cost_usd = usd;
  return b;
}

class AgentLedgerTest : public ::testing::Test {
 protected:
  void SetUp() override {
    auto created = store::Workspace::create(dir.path() / "ws");
    ASSERT_TRUE(created.ok()) << created.error().message;
    ws.emplace(std::move(*created));
  }
  AgentRequest request(const std::string& prompt, const std::string& role = "variant") {
    AgentRequest r;
    r.role = role;
    r.system = "be brief";
    r.prompt = prompt;
    return r;
  }
  store::TestTempDir dir;
  std::optional<store::Workspace> ws;
  FakeAgent agent;
};

TEST_F(AgentLedgerTest, StoresEveryCallWithItsPromptAnswerTokensAndCost) {
  AgentLedger ledger(*ws, agent, {}, Price{3.0, 15.0});
  const CallRecord rec = ledger.call(request("p1"), "qkv");
  ASSERT_TRUE(rec.reply);
  auto s = ws->db().prepare(
      "SELECT run, role, provider, model, kernel, prompt_hash, response_hash, input_tokens, "
      "output_tokens, cost_usd, latency_s, outcome FROM agent_calls WHERE id = ?");
  s.bind(1, rec.id);
  ASSERT_TRUE(s.step());
  EXPECT_EQ(s.text(0), ledger.run_id());
  EXPECT_EQ(s.text(1), "variant");
  EXPECT_EQ(s.text(2), "fake");
  EXPECT_EQ(s.text(3), "fake-1-2026") << "the model that answered, not the one asked for";
  EXPECT_EQ(s.text(4), "qkv");
  const auto prompt = ws->artifacts().get(s.text(5));
  ASSERT_TRUE(prompt);
  EXPECT_NE(prompt->find("be brief"), std::string::npos);
  EXPECT_NE(prompt->find("p1"), std::string::npos);
  EXPECT_EQ(ws->artifacts().get(s.text(6)), "answer to p1");
  EXPECT_EQ(s.int64(7), 1000);
  EXPECT_EQ(s.int64(8), 500);
  EXPECT_DOUBLE_EQ(s.real(9), (1000 * 3.0 + 500 * 15.0) / 1e6);
  EXPECT_DOUBLE_EQ(s.real(10), 0.25);
  EXPECT_EQ(s.text(11), "ok");
  EXPECT_EQ(ledger.spent().calls, 1);
  EXPECT_EQ(ledger.spent().output_tokens, 500);
}

TEST_F(AgentLedgerTest, TheCallBudgetStopsBeforeCallingAndNamesItself) {
  AgentLedger ledger(*ws, agent, budget_of_calls(2));
  ledger.call(request("a"));
  EXPECT_TRUE(ledger.spent_budget().empty());
  ledger.call(request("b"));
  try {
    ledger.call(request("c"));
    FAIL() << "a third call went through a budget of two";
  } catch (const BudgetSpent& e) {
    EXPECT_NE(std::string(e.what()).find("--max-calls 2"), std::string::npos) << e.what();
  }
  EXPECT_EQ(ws->db().query_int64("SELECT COUNT(*) FROM agent_calls"), 2)
      << "a refused call is not stored";
  EXPECT_NE(ledger.spent_budget().find("--max-calls"), std::string::npos);
}

TEST_F(AgentLedgerTest, TokenAndCostBudgetsCountAnsweredCalls) {
  AgentLedger tokens(*ws, agent, budget_of_tokens(3000));
  tokens.call(request("a"));  // 1500
  tokens.call(request("b"));  // 3000: spent
  EXPECT_THROW(tokens.call(request("c")), BudgetSpent);
  EXPECT_NE(tokens.spent_budget().find("--max-tokens 3000"), std::string::npos)
      << tokens.spent_budget();

  AgentLedger cost(*ws, agent, budget_of_cost(0.01), Price{5.0, 5.0});  // 0.0075 a call
  cost.call(request("a"));
  cost.call(request("b"));
  try {
    cost.call(request("c"));
    FAIL() << "spent 0.015 of a 0.01 budget and called again";
  } catch (const BudgetSpent& e) {
    EXPECT_NE(std::string(e.what()).find("--max-cost"), std::string::npos) << e.what();
  }
}

TEST_F(AgentLedgerTest, ErrorsAreStoredAndOnlyRunFatalOnesAreRethrown) {
  AgentLedger ledger(*ws, agent);
  agent.fail = [](const AgentRequest&) {
    throw AgentError(AgentError::Kind::kTransient, "HTTP 503 after 5 attempts");
  };
  const CallRecord transient = ledger.call(request("a"));
  ASSERT_TRUE(transient.error);
  EXPECT_FALSE(transient.reply);
  EXPECT_EQ(transient.error->kind(), AgentError::Kind::kTransient);

  agent.fail = [](const AgentRequest&) {
    throw AgentError(AgentError::Kind::kAuth, "401: set OPENAI_API_KEY");
  };
  EXPECT_THROW(ledger.call(request("b")), AgentError);

  auto s = ws->db().prepare(
      "SELECT outcome, reason, response_hash IS NULL FROM agent_calls ORDER BY id");
  ASSERT_TRUE(s.step());
  EXPECT_EQ(s.text(0), "error:transient");
  EXPECT_EQ(s.text(1), "HTTP 503 after 5 attempts");
  EXPECT_EQ(s.int64(2), 1);
  ASSERT_TRUE(s.step());
  EXPECT_EQ(s.text(0), "error:auth");
  EXPECT_EQ(ledger.spent().calls, 2);
}

TEST_F(AgentLedgerTest, CallsInFlightAreBounded) {
  agent.delay = std::chrono::milliseconds(30);
  AgentLedger ledger(*ws, agent, {}, {}, 2);
  std::vector<std::thread> threads;
  for (int i = 0; i < 6; ++i)
    threads.emplace_back([&, i] { ledger.call(request("p" + std::to_string(i))); });
  for (auto& t : threads) t.join();
  EXPECT_EQ(agent.max_in_flight.load(), 2);
  EXPECT_EQ(ws->db().query_int64("SELECT COUNT(*) FROM agent_calls"), 6);
}

TEST_F(AgentLedgerTest, OnlyTheOutcomeOfAStoredCallChanges) {
  AgentLedger ledger(*ws, agent);
  const auto rec = ledger.call(request("a"));
  ledger.set_outcome(rec.id, "malformed", "no code block");
  EXPECT_EQ(ws->db().query_text("SELECT outcome || '|' || reason FROM agent_calls"),
            "malformed|no code block");
  EXPECT_THROW(ws->db().exec("UPDATE agent_calls SET output_tokens = 1"), store::StoreError);
  EXPECT_THROW(ws->db().exec("DELETE FROM agent_calls"), store::StoreError);
  EXPECT_THROW(ledger.set_outcome(rec.id + 100, "ok"), std::logic_error);
}

TEST_F(AgentLedgerTest, UsageByRoleCountsCandidatesAndAcceptedChanges) {
  AgentLedger ledger(*ws, agent);
  const auto v1 = ledger.call(request("a", "variant"));
  const auto v2 = ledger.call(request("b", "variant"));
  ledger.call(request("c", "designer"));
  ws->db().exec(
      "INSERT INTO kernels(name, target) VALUES ('qkv', 'cpu');"
      "INSERT INTO nodes(id, kernel, kind, source_hash, status) VALUES (1, 'qkv', 'baseline', "
      "'h0', 'accepted');"
      "INSERT INTO nodes(id, kernel, parent_id, kind, source_hash, status) VALUES (2, 'qkv', 1, "
      "'variant', 'h1', 'accepted');"
      "INSERT INTO nodes(id, kernel, parent_id, kind, source_hash, status) VALUES (3, 'qkv', 1, "
      "'variant', 'h2', 'rejected');");
  ledger.link_node(2, v1.id);
  ledger.link_node(3, v2.id);
  ledger.set_outcome(v1.id, "candidate");
  const auto usage = usage_by_role(*ws);
  ASSERT_EQ(usage.size(), 2u);
  EXPECT_EQ(usage[0].role, "designer");
  EXPECT_EQ(usage[0].candidates, 0);
  EXPECT_EQ(usage[1].role, "variant");
  EXPECT_EQ(usage[1].calls, 2);
  EXPECT_EQ(usage[1].input_tokens, 2000);
  EXPECT_EQ(usage[1].candidates, 2);
  EXPECT_EQ(usage[1].accepted, 1);
  EXPECT_EQ(usage[1].outcomes.at("candidate"), 1);
  EXPECT_EQ(usage[1].outcomes.at("ok"), 1);
  const RoleUsage total = total_usage(usage);
  EXPECT_EQ(total.role, "total");
  EXPECT_EQ(total.calls, 3);
  EXPECT_EQ(total.input_tokens, 3000);
  EXPECT_EQ(total.output_tokens, usage[0].output_tokens + usage[1].output_tokens);
  EXPECT_DOUBLE_EQ(total.cost_usd, usage[0].cost_usd + usage[1].cost_usd);
  EXPECT_DOUBLE_EQ(total.latency_s, usage[0].latency_s + usage[1].latency_s);
  EXPECT_EQ(total.candidates, 2);
  EXPECT_EQ(total.accepted, 1);
  EXPECT_EQ(total.outcomes.at("candidate"), 1);
  EXPECT_EQ(total.outcomes.at("ok"), 2) << "one variant call and the designer's";
  const auto call = node_agent_call(*ws, 2);
  ASSERT_TRUE(call);
  EXPECT_EQ(call->describe(), fmt::format("fake fake-1-2026, role variant, call {}", v1.id));
  EXPECT_NE(ws->artifacts().get(call->prompt_hash).value_or("").find("# prompt\na\n"),
            std::string::npos)
      << "the prompt of the call that proposed it";
  EXPECT_EQ(node_agent_call(*ws, 1), std::nullopt);
}

}  // namespace
}  // namespace headway::agents
