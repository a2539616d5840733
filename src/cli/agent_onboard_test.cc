// `headway onboard --agent` end to end: the real headway binary against a real HTTP server on
// 127.0.0.1 that speaks the OpenAI or the Anthropic protocol. The summarizer writes a cited summary
// chapter by chapter (one chapter's answer is malformed and left out), the script pass checks it,
// and two judge passes give verdicts (one malformed, counted as unsupported).
#include <gtest/gtest.h>

#include <fstream>
#include <nlohmann/json.hpp>
#include <regex>

#include "agents/test_http_server.h"
#include "cli/cli_test_support.h"
#include "store/test_temp_dir.h"

namespace headway::cli {
namespace {

// The answer to one request, by what it asks.
std::string answer_for(const std::string& prompt, std::map<std::string, int>& judged) {
  std::smatch chapter;
  if (std::regex_search(prompt, chapter, std::regex("## Chapter `([^`]+)`"))) {
    if (chapter[1] == "b.md") return "The second chapter has nothing worth saying.";  // no citation
    return "## The chip\n- The chip has 4 cores. [a.md:L1]\n- It reads 50 GB/s from memory. "
           "[a.md:L2 \"50 GB/s\"]\n";
  }
  const std::string claim = prompt.find("4 cores") != std::string::npos ? "cores" : "bandwidth";
  const int pass = ++judged[claim];
  if (claim == "bandwidth" && pass == 2) return "I think it is probably right.";  // not a verdict
  return "VERDICT: fully-supported\nWHY: the cited line says so";
}

class AgentOnboard : public ::testing::TestWithParam<std::string> {};

TEST_P(AgentOnboard, TheSummarizerWritesTheSummaryAndTwoJudgesCheckIt) {
  const std::string protocol = GetParam();
  store::TestTempDir tmp;
  const auto docs = tmp.path() / "docs";
  std::filesystem::create_directories(docs);
  std::ofstream(docs / "a.md") << "The chip has 4 cores.\nIt reads 50 GB/s from memory.\n";
  std::ofstream(docs / "b.md") << "Nothing here.\n";
  std::mutex mu;
  std::map<std::string, int> judged;
  agents::testing::TestHttpServer server(
      protocol == "openai" ? "/v1/chat/completions" : "/v1/messages",
      [&](int, const httplib::Request& req, httplib::Response& res) {
        const auto body = nlohmann::json::parse(req.body);
        std::lock_guard lock(mu);
        const std::string prompt = body["messages"].back()["content"].get<std::string>();
        res.set_content(agents::testing::reply_body(
                            protocol, {answer_for(prompt, judged), "docs-1", 500, 50, false}),
                        "application/json");
      });
  const std::string ws = (tmp.path() / "ws").string();
  ASSERT_EQ(run_headway({"init", ws, "--target", "sim"}).exit_code, 0);
  const CliRun run =
      run_headway({"onboard", "--workspace", ws, "--docs", docs.string(), "--agent",
                   protocol + ":docs-model", "--agent-base-url", server.base_url(), "--json"});
  ASSERT_EQ(run.exit_code, 0) << run.err;
  const auto j = nlohmann::json::parse(run.out);
  const auto& summary = j["summary"];
  EXPECT_EQ(summary["from"], "written by " + protocol + ":docs-model (summarizer)");
  EXPECT_EQ(summary["citations"], 2);
  EXPECT_EQ(
      summary["agent_passes"],
      "agent passes (agent-judge-1, agent-judge-2): 2 claims: 1 fully-supported, 1 unsupported")
      << summary.dump(2);
  EXPECT_NE(run.err.find("b.md: malformed: no cited claim"), std::string::npos) << run.err;

  // The checked summary is the summarizer's, kept beside the cheat sheet.
  const std::string kept = file_text(std::filesystem::path(ws) / ".headway/knowledge/summary.md");
  EXPECT_NE(kept.find("The chip has 4 cores. [a.md:L1]"), std::string::npos) << kept;

  const auto usage =
      nlohmann::json::parse(run_headway({"agents", "usage", "--workspace", ws, "--json"}).out);
  std::map<std::string, nlohmann::json> roles;
  for (const auto& r : usage["roles"]) roles[r["role"]] = r;
  EXPECT_EQ(roles["summarizer"]["calls"], 2);
  EXPECT_EQ(roles["summarizer"]["outcomes"]["malformed"], 1);
  EXPECT_EQ(roles["judge"]["calls"], 4) << "two claims, two passes each";
  EXPECT_EQ(roles["judge"]["outcomes"]["malformed"], 1);
  EXPECT_EQ(roles["judge"]["outcomes"]["verdict"], 3);
}

INSTANTIATE_TEST_SUITE_P(Protocols, AgentOnboard, ::testing::Values("openai", "anthropic"));

}  // namespace
}  // namespace headway::cli
