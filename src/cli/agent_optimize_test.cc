// `headway optimize --agent` end to end: the real headway binary against real HTTP servers on
// 127.0.0.1 that speak the OpenAI and the Anthropic protocols and serve scripted answers (a
// faster kernel, a wrong one, one that does not compile, a malformed answer, a 429 then success,
// a 500, a stall past the timeout, a truncated code block). On the sim target, so that the loop's
// outcomes are known exactly; each fault ends as its documented outcome and nothing is lost.
#include <gtest/gtest.h>

#include <deque>
#include <nlohmann/json.hpp>
#include <set>

#include "agents/test_http_server.h"
#include "cli/cli_test_support.h"
#include "store/test_temp_dir.h"

namespace headway::cli {
namespace {

using agents::testing::TestHttpServer;

struct Step {
  int status = 200;
  std::string text;         // the answer's text (200)
  bool truncated = false;   // cut at max_tokens
  bool stall = false;       // answer nothing past the client's timeout
  std::string retry_after;  // a 429's Retry-After
};

// A provider that answers each request with the next scripted step, in its protocol.
class ScriptedProvider {
 public:
  ScriptedProvider(std::string protocol, std::deque<Step> steps)
      : protocol_(std::move(protocol)),
        steps_(std::move(steps)),
        server_(protocol_ == "openai" ? "/v1/chat/completions" : "/v1/messages",
                [this](int, const httplib::Request&, httplib::Response& res) { answer(res); }) {}

  std::string spec(const std::string& model) const { return protocol_ + ":" + model; }
  std::string base_url() const { return server_.base_url(); }
  std::vector<agents::testing::ReceivedRequest> received() const { return server_.received(); }

 private:
  void answer(httplib::Response& res) {
    Step step;
    {
      std::lock_guard lock(mu_);
      if (steps_.empty()) {
        res.status = 500;
        res.set_content(R"({"error": {"message": "the script ran out"}})", "application/json");
        return;
      }
      step = steps_.front();
      steps_.pop_front();
    }
    if (step.stall) {
      server_.stall(std::chrono::seconds(10));
      return;
    }
    res.status = step.status;
    if (!step.retry_after.empty()) res.set_header("Retry-After", step.retry_after);
    if (step.status != 200) {
      res.set_content(R"({"error": {"message": "scripted failure", "type": "server_error"}})",
                      "application/json");
      return;
    }
    res.set_content(agents::testing::reply_body(
                        protocol_, {step.text, "scripted-1", 1000, 100, step.truncated}),
                    "application/json");
  }

  std::string protocol_;
  std::mutex mu_;
  std::deque<Step> steps_;
  TestHttpServer server_;
};

nlohmann::json stdout_json(const CliRun& run) {
  EXPECT_EQ(run.problem, "");
  try {
    return nlohmann::json::parse(run.out);
  } catch (const std::exception& e) {
    ADD_FAILURE() << "not JSON: " << e.what() << "\nstdout:\n"
                  << run.out << "\nstderr:\n"
                  << run.err;
    return nullptr;
  }
}

class AgentOptimize : public ::testing::TestWithParam<std::string> {
 protected:
  void SetUp() override {
    ws_ = (tmp_.path() / "ws").string();
    ASSERT_EQ(run_headway({"init", ws_}).exit_code, 0);
  }
  std::vector<std::string> optimize_args(const ScriptedProvider& provider, int max_calls) {
    return {"optimize",
            "--workspace",
            ws_,
            "--target",
            "sim",
            "--kernels",
            "qkv",
            "--budget",
            "2m",
            "--agent",
            provider.spec("test-model"),
            "--agent-base-url",
            provider.base_url(),
            "--agent-timeout",
            "1",
            "--agent-jobs",
            "1",
            "--max-calls",
            std::to_string(max_calls),
            "--json"};
  }
  store::TestTempDir tmp_;
  std::string ws_;
};

TEST_P(AgentOptimize, EveryScriptedFaultEndsAsDocumentedAndTheFasterKernelBecomesHead) {
  ScriptedProvider provider(
      GetParam(),
      {
          {200, "I would decode with a lookup table.", false, false, ""},  // malformed: no code
          {429, "", false, false, "0"},                                    // retried ...
          {200, "NAME: fast\nWHY: fewer passes\n```\nsim-x 0.4\n```\n", false, false,
           ""},                                               // ... faster
          {200, "```cpp\nsim-wrong\n```", false, false, ""},  // fails the check
          {200, "```\nsim-build-error 'foo' was not declared\n```", false, false, ""},  // no build
          {500, "", false, false, ""},                                      // retried ...
          {200, "```\nsim-x 0.3\n", true, false, ""},                       // ... truncated
          {200, "", false, true, ""},                                       // stalls: retried ...
          {200, "WHY: one change\n```\nsim-x 0.9\n```", false, false, ""},  // ... slower variant
      });
  const CliRun run = run_headway(optimize_args(provider, 6), "", 300);
  ASSERT_EQ(run.exit_code, 0) << run.err;
  const auto j = stdout_json(run);
  EXPECT_EQ(j["stopped"], "agent budget spent: --max-calls 6 (6 calls made)") << run.err;
  EXPECT_EQ(j["accepted"], 1);
  EXPECT_EQ(j["agent"]["calls"], 6);
  EXPECT_EQ(j["agent"]["input_tokens"], 6000) << "every call was answered in the end";

  // The tree: the faster kernel is head, through the acceptance test; every other answer has
  // the status its fault leads to, and each agent node names its call.
  const auto tree = stdout_json(run_headway({"tree", "qkv", "--workspace", ws_, "--json"}));
  std::multiset<std::string> statuses;
  int agent_nodes = 0;
  for (const auto& n : tree["nodes"]) {
    if (n["kind"] == "baseline") continue;
    ++agent_nodes;
    ASSERT_FALSE(n["agent_call"].is_null()) << n.dump();
    EXPECT_EQ(n["agent_call"]["provider"], GetParam());
    EXPECT_EQ(n["agent_call"]["model"], "scripted-1");
    EXPECT_EQ(n["proposer"].get<std::string>().rfind(GetParam() + ":scripted-1 ", 0), 0u)
        << n["proposer"];
    statuses.insert(n["status"].get<std::string>());
    if (n["head"] == true) {
      EXPECT_EQ(n["design"], "agent/fast");
      EXPECT_EQ(n["status"], "accepted");
      EXPECT_EQ(n["agent_call"]["role"], "designer");
    }
  }
  EXPECT_EQ(agent_nodes, 4) << tree.dump(2);
  EXPECT_EQ(tree["nodes"][tree["head"].get<int>() - 1]["design"], "agent/fast");
  EXPECT_EQ(statuses.count("accepted"), 1u) << tree.dump(2);
  EXPECT_EQ(statuses.count("incorrect"), 1u) << tree.dump(2);
  EXPECT_EQ(statuses.count("build-failed"), 1u) << tree.dump(2);
  // The last answer (0.9 of the baseline's time) is slower than the new head (0.4): not accepted.
  EXPECT_EQ(statuses.count("slower") + statuses.count("raced-out") + statuses.count("inconclusive"),
            1u)
      << tree.dump(2);

  // Usage per role: the malformed answers are counted, not lost.
  const auto usage = stdout_json(run_headway({"agents", "usage", "--workspace", ws_, "--json"}));
  EXPECT_EQ(usage["total"]["calls"], 6);
  EXPECT_EQ(usage["total"]["accepted"], 1);
  EXPECT_EQ(usage["total"]["candidates"], 4);
  EXPECT_EQ(usage["total"]["outcomes"]["malformed"], 2) << usage.dump(2);

  // What the provider was asked: the model, and a prompt about the kernel with its head.
  const auto received = provider.received();
  ASSERT_EQ(received.size(), 9u) << "6 calls, 3 of them retried once";
  const auto first = nlohmann::json::parse(received[0].body);
  EXPECT_EQ(first["model"], "test-model");
  EXPECT_NE(received[0].body.find("qkv"), std::string::npos);
}

TEST_P(AgentOptimize, AnAuthFailureEndsTheRunWithAClearErrorAndKeepsTheWorkspace) {
  ScriptedProvider provider(GetParam(), {{401, "", false, false, ""}});
  auto args = optimize_args(provider, 10);
  args.pop_back();  // no --json: the error line
  const CliRun run = run_headway(args, "", 120);
  EXPECT_EQ(run.exit_code, 2) << run.out << run.err;
  EXPECT_NE(run.err.find("auth"), std::string::npos) << run.err;
  EXPECT_NE(run.err.find(GetParam() == "openai" ? "OPENAI_API_KEY" : "ANTHROPIC_API_KEY"),
            std::string::npos)
      << run.err;
  // The kernel and its baseline were registered first and are still there; the call is stored.
  const auto tree = stdout_json(run_headway({"tree", "qkv", "--workspace", ws_, "--json"}));
  EXPECT_EQ(tree["nodes"].size(), 1u);
  const auto usage = stdout_json(run_headway({"agents", "usage", "--workspace", ws_, "--json"}));
  EXPECT_EQ(usage["total"]["outcomes"]["error:auth"], 1) << usage.dump(2);
}

// (design, status) of every node but the baseline, in id order.
std::vector<std::string> node_outcomes(const std::string& ws) {
  const auto tree = stdout_json(run_headway({"tree", "qkv", "--workspace", ws, "--json"}));
  std::vector<std::string> out;
  for (const auto& n : tree["nodes"]) {
    if (n["kind"] != "baseline")
      out.push_back(n["design"].get<std::string>() + " " + n["status"].get<std::string>());
  }
  return out;
}

// A run recorded with --agent-record and replayed from its transcript makes the same calls, gets
// the same answers and ends with the same tree, without the provider.
TEST_P(AgentOptimize, ARecordedRunReplaysExactly) {
  const std::string transcript = (tmp_.path() / "run.jsonl").string();
  std::vector<std::string> recorded_outcomes;
  {
    ScriptedProvider provider(GetParam(),
                              {{200, "NAME: fast\n```\nsim-x 0.4\n```", false, false, ""},
                               {200, "no code here", false, false, ""},
                               {200, "```\nsim-wrong\n```", false, false, ""},
                               {200, "```\nsim-x 0.5\n```", false, false, ""},
                               {200, "```\nsim-x 0.35\n```", false, false, ""}});
    auto args = optimize_args(provider, 5);
    args.insert(args.end(), {"--agent-record", transcript});
    const CliRun run = run_headway(args, "", 300);
    ASSERT_EQ(run.exit_code, 0) << run.err;
    recorded_outcomes = node_outcomes(ws_);
  }
  const std::string replay_ws = (tmp_.path() / "replay").string();
  ASSERT_EQ(run_headway({"init", replay_ws}).exit_code, 0);
  const CliRun replay = run_headway(
      {"optimize", "--workspace", replay_ws, "--target", "sim", "--kernels", "qkv", "--budget",
       "2m", "--agent", "replay:" + transcript, "--agent-jobs", "1", "--max-calls", "5", "--json"},
      "", 300);
  ASSERT_EQ(replay.exit_code, 0) << replay.err;
  const auto j = stdout_json(replay);
  EXPECT_EQ(j["agent"]["calls"], 5);
  EXPECT_EQ(j["agent"]["input_tokens"], 5000) << "the recorded token counts come back";
  EXPECT_EQ(node_outcomes(replay_ws), recorded_outcomes);
  EXPECT_GE(recorded_outcomes.size(), 3u);
}

// The cheat sheet goes into every kernel prompt, unless the run switched it off.
TEST_P(AgentOptimize, WithoutTheCheatSheetThePromptsCarryNone) {
  for (const bool with : {true, false}) {
    store::TestTempDir tmp;
    const std::string ws = (tmp.path() / "ws").string();
    ASSERT_EQ(run_headway({"init", ws}).exit_code, 0);
    ScriptedProvider provider(GetParam(), {{200, "```\nsim-x 0.4\n```\n", false, false, ""}});
    ws_ = ws;
    auto args = optimize_args(provider, 1);
    if (!with) args.insert(args.end(), {"--without", "cheat-sheet"});
    const CliRun run = run_headway(args, "", 300);
    ASSERT_EQ(run.exit_code, 0) << run.err;
    EXPECT_EQ(stdout_json(run)["switched_off"], with ? "" : "cheat-sheet");
    const auto received = provider.received();
    ASSERT_EQ(received.size(), 1u);
    EXPECT_EQ(received[0].body.find("# Cheat sheet") != std::string::npos, with)
        << received[0].body.substr(0, 2000);
  }
}

INSTANTIATE_TEST_SUITE_P(Protocols, AgentOptimize, ::testing::Values("openai", "anthropic"));

TEST(AgentOptions, BadAgentOptionsAreUsageErrorsThatChangeNothing) {
  store::TestTempDir tmp;
  const std::string ws = (tmp.path() / "ws").string();
  ASSERT_EQ(run_headway({"init", ws}).exit_code, 0);
  const std::vector<std::pair<std::vector<std::string>, std::string>> cases = {
      {{"--agent", "gpt-4"}, "expected openai:MODEL"},
      {{"--agent", "openai:"}, "names no model"},
      {{"--agent", "replay:/no/such/transcript"}, "/no/such/transcript"},
      {{"--max-calls", "3"}, "--max-calls needs --agent"},
      {{"--agent-timeout", "5"}, "--agent-timeout needs --agent"},
      {{"--agent", "cmd:true", "--agent-base-url", "http://x"}, "--agent-base-url is for"},
      {{"--agent", "cmd:true", "--agent-price", "3"}, "--agent-price '3'"},
      {{"--agent", "cmd:true", "--max-cost", "0", "--agent-price", "1,1"},
       "--max-cost must be more than 0"},
      {{"--agent", "cmd:true", "--max-cost", "5"}, "--max-cost needs --agent-price"},
      {{"--library"}, "--library goes with --agent"},
  };
  for (const auto& [extra, message] : cases) {
    std::vector<std::string> args = {"optimize",  "--workspace", ws,         "--target", "sim",
                                     "--kernels", "qkv",         "--budget", "5s"};
    args.insert(args.end(), extra.begin(), extra.end());
    const CliRun run = run_headway(args);
    EXPECT_EQ(run.exit_code, 2) << extra[0] << ": " << run.err;
    EXPECT_NE(run.err.find(message), std::string::npos) << extra[0] << ": " << run.err;
  }
  // Nothing was registered: every case failed before the workspace was touched.
  const CliRun tree = run_headway({"tree", "qkv", "--workspace", ws});
  EXPECT_NE(tree.exit_code, 0);
}

}  // namespace
}  // namespace headway::cli
