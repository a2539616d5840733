#include "agents/agent_proposer.h"

#include <fmt/format.h>
#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <future>
#include <mutex>
#include <thread>

#include "agents/agent_test_support.h"
#include "agents/command_agent.h"
#include "agents/replay_agent.h"
#include "store/test_temp_dir.h"
#include "targets/registry/test_targets.h"

namespace headway::agents {
namespace {

constexpr const char* kHead =
    "extern \"C\" void hw_attn_out(const hw_attn_out_args* a) { /* head */ }\n";

class AgentProposerTest : public ::testing::Test {
 protected:
  void SetUp() override {
    auto created = store::Workspace::create(dir.path() / "ws");
    ASSERT_TRUE(created.ok()) << created.error().message;
    ws.emplace(std::move(*created));
  }
  // A transcript of replies, one JSON object per line.
  std::filesystem::path transcript(const std::vector<nlohmann::json>& entries) {
    return testing::write_transcript(dir.path() / "t.jsonl", entries);
  }
  loop::ProposalContext context(const std::string& head_design, int max_proposals) {
    loop::ProposalContext ctx;
    ctx.kernel = builtin_kernel("attn_out");
    ctx.head_source = kHead;
    ctx.head_design = head_design;
    ctx.max_proposals = max_proposals;
    ctx.already_tried = [this](const std::string& s) { return tried.count(s) > 0; };
    return ctx;
  }
  std::string outcome(int64_t call) {
    auto s = ws->db().prepare("SELECT outcome || '|' || reason FROM agent_calls WHERE id = ?");
    s.bind(1, call);
    return s.step() ? s.text(0) : "(none)";
  }
  store::TestTempDir dir;
  std::optional<store::Workspace> ws;
  std::set<std::string> tried;
  std::vector<std::string> log;
  AgentProposerOptions options() {
    AgentProposerOptions o;
    o.cheat_sheet = [] { return std::string("## Chip facts\nread bandwidth 50 GB/s"); };
    return o;
  }
  loop::ProposerLog logger() {
    return [this](const std::string& line) { log.push_back(line); };
  }
};

TEST_F(AgentProposerTest, ADesignerAnswerBecomesANamedDesignOfTheRoot) {
  ReplayAgent agent(
      transcript({{{"role", "designer"},
                   {"model", "m-1"},
                   {"response",
                    "NAME: Two Row Pool\nWHY: share activations\n```cpp\nint designed;\n```\n"}}}));
  AgentLedger ledger(*ws, agent);
  AgentProposer proposer(targets::test_cpu_target(), ledger, options(), logger());
  const auto out = proposer.propose(context("baseline", 1));
  ASSERT_EQ(out.size(), 1u);
  EXPECT_EQ(out[0].design, "agent/two_row_pool");
  EXPECT_EQ(out[0].source, "int designed;\n");
  EXPECT_TRUE(out[0].parent_source.empty()) << "a design hangs from the root";
  EXPECT_EQ(out[0].rationale, "share activations");
  EXPECT_EQ(out[0].proposer, "replay:m-1 designer");
  ASSERT_TRUE(out[0].agent_call);
  // The prompt it was given is stored with the call, rendered from the designer template.
  // (A statement left open would keep this connection's view of the database from before the
  // ledger's writes below: the ledger stores through a connection of its own.)
  const std::string where = fmt::format(" FROM agent_calls WHERE id = {}", *out[0].agent_call);
  EXPECT_EQ(ws->db().query_text("SELECT role" + where), "designer");
  const auto prompt = ws->artifacts().get(ws->db().query_text("SELECT prompt_hash" + where));
  ASSERT_TRUE(prompt);
  EXPECT_NE(prompt->find("/* head */"), std::string::npos);
  EXPECT_NE(prompt->find("read bandwidth 50 GB/s"), std::string::npos);
  EXPECT_NE(prompt->find("NAME:"), std::string::npos);

  testing::insert_test_node(*ws, "attn_out", 7, "design", "proposed");
  proposer.proposed(7, *out[0].agent_call, false);
  EXPECT_EQ(outcome(*out[0].agent_call), "candidate|node 7");
  EXPECT_EQ(ws->db().query_int64("SELECT node_id FROM node_agent_calls"), 7);
}

TEST_F(AgentProposerTest, VariantsChangeTheHeadAndDesignersComeEveryThirdCall) {
  std::vector<nlohmann::json> entries;
  for (int i = 0; i < 2; ++i)
    entries.push_back(
        nlohmann::json{{"role", "designer"}, {"response", fmt::format("```\nint d{};\n```", i)}});
  for (int i = 0; i < 4; ++i)
    entries.push_back(nlohmann::json{
        {"role", "variant"}, {"response", fmt::format("WHY: unroll\n```c++\nint v{};\n```", i)}});
  ReplayAgent agent(transcript(entries));
  AgentLedger ledger(*ws, agent);
  AgentProposer proposer(targets::test_cpu_target(), ledger, options());
  const auto out = proposer.propose(context("shift_pool", 6));
  ASSERT_EQ(out.size(), 6u);
  int designers = 0;
  for (const auto& p : out) {
    if (p.proposer.find("designer") != std::string::npos) {
      ++designers;
      EXPECT_EQ(p.design.rfind("agent/design_", 0), 0u) << "no NAME: line: named after its call";
    } else {
      EXPECT_EQ(p.design, "agent/shift_pool");
      EXPECT_EQ(p.parent_source, kHead) << "a variant's parent is the head";
      EXPECT_EQ(p.rationale, "unroll");
    }
  }
  EXPECT_EQ(designers, 2) << "calls 0 and 3 of the kernel";
  EXPECT_EQ(agent.remaining("designer") + agent.remaining("variant"), 0u);
}

TEST_F(AgentProposerTest, MalformedAndDuplicateAnswersAreStoredAndSkipped) {
  tried.insert("int old;\n");
  ReplayAgent agent(
      transcript({{{"role", "designer"}, {"response", "I would use a lookup table."}},
                  {{"role", "designer"}, {"response", "```cpp\nint cut"}, {"truncated", true}},
                  {{"role", "designer"}, {"response", "```cpp\nint old;\n```"}}}));
  AgentLedger ledger(*ws, agent);
  AgentProposer proposer(targets::test_cpu_target(), ledger, options(), logger());
  EXPECT_TRUE(proposer.propose(context("baseline", 3)).empty());
  std::vector<std::string> outcomes;
  auto s = ws->db().prepare("SELECT outcome || '|' || reason FROM agent_calls ORDER BY id");
  while (s.step()) outcomes.push_back(s.text(0));
  ASSERT_EQ(outcomes.size(), 3u);
  std::sort(outcomes.begin(), outcomes.end());
  EXPECT_EQ(outcomes[0], "duplicate|its code was already tried on this kernel");
  EXPECT_EQ(outcomes[1].rfind("malformed|no code block", 0), 0u) << outcomes[1];
  EXPECT_NE(outcomes[2].find("truncated code block"), std::string::npos) << outcomes[2];
  EXPECT_NE(outcomes[2].find("cut at max_tokens"), std::string::npos) << outcomes[2];
  EXPECT_EQ(log.size(), 3u) << "each skipped answer is said";
  EXPECT_TRUE(proposer.stopped().empty());
}

TEST_F(AgentProposerTest, ASpentBudgetStopsTheProposerAndSaysWhich) {
  ReplayAgent agent(transcript({{{"role", "designer"}, {"response", "```\nint a;\n```"}},
                                {{"role", "designer"}, {"response", "```\nint b;\n```"}}}));
  AgentBudget budget;
  budget.max_calls = 1;
  AgentLedger ledger(*ws, agent, budget);
  AgentProposer proposer(targets::test_cpu_target(), ledger, options());
  EXPECT_EQ(proposer.propose(context("baseline", 2)).size(), 1u);
  EXPECT_NE(proposer.stopped().find("--max-calls 1"), std::string::npos) << proposer.stopped();
  EXPECT_TRUE(proposer.propose(context("baseline", 2)).empty());
  EXPECT_EQ(agent.remaining("designer"), 1u) << "nothing is asked once the budget is spent";
}

TEST_F(AgentProposerTest, AnErrorFatalForTheRunIsRethrownAfterItIsStored) {
  ReplayAgent agent(transcript(
      {{{"role", "designer"}, {"error", "auth"}, {"message", "401: set OPENAI_API_KEY"}}}));
  AgentLedger ledger(*ws, agent);
  AgentProposer proposer(targets::test_cpu_target(), ledger, options());
  try {
    proposer.propose(context("baseline", 1));
    FAIL() << "an auth failure was swallowed";
  } catch (const std::runtime_error& e) {
    EXPECT_NE(std::string(e.what()).find("auth"), std::string::npos) << e.what();
    EXPECT_NE(std::string(e.what()).find("OPENAI_API_KEY"), std::string::npos) << e.what();
  }
  EXPECT_EQ(ws->db().query_text("SELECT outcome FROM agent_calls"), "error:auth");
}

TEST_F(AgentProposerTest, ATransientFailureCostsOneProposalOnly) {
  ReplayAgent agent(
      transcript({{{"role", "designer"}, {"error", "transient"}, {"message", "HTTP 503"}},
                  {{"role", "designer"}, {"response", "```\nint ok;\n```"}}}));
  AgentLedger ledger(*ws, agent);
  AgentProposer proposer(targets::test_cpu_target(), ledger, options(), logger());
  EXPECT_EQ(proposer.propose(context("baseline", 2)).size(), 1u);
  ASSERT_EQ(log.size(), 1u);
  EXPECT_NE(log[0].find("HTTP 503"), std::string::npos) << log[0];
}

// A coding-agent CLI edits kernel.cc in its scratch copy; the edited file is the candidate.
TEST_F(AgentProposerTest, ACommandAgentsEditedFileIsTheCandidate) {
  CommandAgentOptions o;
  o.command = "sed -i 's|/\\* head \\*/|/* edited */|' kernel.cc && echo done";
  CommandAgent agent(o);
  AgentLedger ledger(*ws, agent);
  AgentProposer proposer(targets::test_cpu_target(), ledger, options());
  const auto out = proposer.propose(context("shift_pool", 1));
  ASSERT_EQ(out.size(), 1u);
  EXPECT_NE(out[0].source.find("/* edited */"), std::string::npos) << out[0].source;
}

class FixedProposer final : public loop::Proposer {
 public:
  FixedProposer(std::string name, int available) : name_(std::move(name)), available_(available) {}
  std::string name() const override { return name_; }
  std::vector<loop::Proposal> propose(const loop::ProposalContext& ctx) override {
    asked.push_back(ctx.max_proposals);
    std::vector<loop::Proposal> out;
    for (int i = 0; i < std::min(ctx.max_proposals, available_); ++i) {
      loop::Proposal p;
      p.source = fmt::format("{} {}", name_, i);
      out.push_back(p);
    }
    return out;
  }
  std::vector<int> asked;

 private:
  std::string name_;
  int available_;
};

// An agent whose answers wait until the test lets them go.
class GatedAgent final : public Agent {
 public:
  std::string provider() const override { return "gated"; }
  std::string model() const override { return "g-1"; }
  AgentReply complete(const AgentRequest&) override {
    const int n = ++started;
    release.wait();
    AgentReply r;
    r.text = fmt::format("NAME: gated {}\n```cpp\nint gated{};\n```\n", n, n);
    r.model = "g-1";
    return r;
  }
  std::atomic<int> started{0};
  std::promise<void> go;
  std::shared_future<void> release = go.get_future().share();
};

TEST_F(AgentProposerTest, BeginReturnsWhileTheCallsRunAndEachAnswerIsPrebuiltOnItsThread) {
  GatedAgent agent;
  AgentLedger ledger(*ws, agent, {}, {}, 2);
  AgentProposer proposer(targets::test_cpu_target(), ledger, options(), logger());
  EXPECT_TRUE(proposer.works_in_background());
  auto ctx = context("baseline", 2);
  std::mutex mu;
  std::vector<std::string> prebuilt;
  std::set<std::thread::id> prebuild_threads;
  ctx.prebuild = [&](const std::string& source) {
    std::lock_guard lock(mu);
    prebuilt.push_back(source);
    prebuild_threads.insert(std::this_thread::get_id());
  };
  auto pending = proposer.begin(ctx);
  // begin() has returned; both calls are in flight and neither has answered.
  for (int i = 0; i < 1000 && agent.started < 2; ++i)
    std::this_thread::sleep_for(std::chrono::milliseconds(5));
  EXPECT_EQ(agent.started, 2);
  {
    std::lock_guard lock(mu);
    EXPECT_TRUE(prebuilt.empty());
  }
  agent.go.set_value();
  const auto out = pending->wait();
  ASSERT_EQ(out.size(), 2u);
  std::lock_guard lock(mu);
  EXPECT_EQ(prebuilt.size(), 2u) << "each answer's code is handed on as soon as it parses";
  EXPECT_EQ(prebuild_threads.count(std::this_thread::get_id()), 0u) << "on the calls' threads";
  EXPECT_EQ(ws->db().query_int64("SELECT COUNT(*) FROM agent_calls WHERE outcome = 'ok'"), 2);
}

TEST_F(AgentProposerTest, WithOneCallInFlightNothingRunsInTheBackground) {
  GatedAgent agent;
  agent.go.set_value();
  AgentLedger ledger(*ws, agent, {}, {}, 1);
  AgentProposer proposer(targets::test_cpu_target(), ledger, options(), logger());
  EXPECT_FALSE(proposer.works_in_background());
  auto pending = proposer.begin(context("baseline", 2));
  std::this_thread::sleep_for(std::chrono::milliseconds(50));
  EXPECT_EQ(agent.started, 0) << "the calls wait for wait(), on the loop's thread, in order";
  EXPECT_EQ(pending->wait().size(), 2u);
  EXPECT_EQ(agent.started, 2);
}

TEST(CombinedProposer, TheFirstGetsHalfTheBatchAndTheRestGoesOn) {
  FixedProposer agent("agent", 1), library("library", 10);
  CombinedProposer both({&agent, &library});
  EXPECT_EQ(both.name(), "agent+library");
  loop::ProposalContext ctx;
  ctx.max_proposals = 5;
  const auto out = both.propose(ctx);
  EXPECT_EQ(agent.asked, std::vector<int>{3});
  EXPECT_EQ(library.asked, std::vector<int>{4}) << "what the agent left unused goes to the library";
  ASSERT_EQ(out.size(), 5u);
  EXPECT_EQ(out[0].proposer, "agent");
  EXPECT_EQ(out[1].proposer, "library");
  EXPECT_FALSE(both.works_in_background()) << "as its first proposer";
}

}  // namespace
}  // namespace headway::agents
