#include "agents/replay_agent.h"

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <string>
#include <thread>
#include <vector>

#include "store/test_temp_dir.h"

namespace headway::agents {
namespace {

namespace fs = std::filesystem;
using store::TestTempDir;

class ReplayAgentTest : public ::testing::Test {
 protected:
  fs::path write(const std::string& text) {
    const fs::path path = dir_.path() / "transcript.jsonl";
    std::ofstream(path, std::ios::binary | std::ios::trunc) << text;
    return path;
  }
  std::string construction_error(const std::string& text) {
    try {
      ReplayAgent agent(write(text));
    } catch (const std::runtime_error& e) {
      return e.what();
    }
    return "";
  }
  static AgentRequest request(const std::string& role) {
    AgentRequest r;
    r.role = role;
    r.prompt = "anything";
    return r;
  }
  TestTempDir dir_;
};

TEST_F(ReplayAgentTest, AnswersInOrderPerRole) {
  ReplayAgent agent(write(
      R"({"role": "designer", "response": "d1", "model": "m", "input_tokens": 5, "output_tokens": 7}
{"role": "judge", "response": "j1"}

{"role": "designer", "response": "d2", "files": {"k.cc": "int x;"}}
)"));
  EXPECT_EQ(agent.provider(), "replay");
  EXPECT_EQ(agent.remaining("designer"), 2u);
  EXPECT_EQ(agent.complete(request("judge")).text, "j1");
  AgentReply d1 = agent.complete(request("designer"));
  EXPECT_EQ(d1.text, "d1");
  EXPECT_EQ(d1.model, "m");
  EXPECT_EQ(d1.input_tokens, 5);
  EXPECT_EQ(d1.output_tokens, 7);
  EXPECT_TRUE(d1.files.empty());
  AgentReply d2 = agent.complete(request("designer"));
  EXPECT_EQ(d2.text, "d2");
  EXPECT_EQ(d2.files.at("k.cc"), "int x;");
  EXPECT_EQ(agent.remaining("designer"), 0u);
}

TEST_F(ReplayAgentTest, FaultEntriesRethrowTheirKind) {
  ReplayAgent agent(write(R"({"role": "variant", "error": "transient", "message": "HTTP 503"}
{"role": "variant", "error": "auth"}
{"role": "variant", "response": "ok"}
)"));
  try {
    agent.complete(request("variant"));
    FAIL();
  } catch (const AgentError& e) {
    EXPECT_EQ(e.kind(), AgentError::Kind::kTransient);
    EXPECT_STREQ(e.what(), "HTTP 503");
  }
  try {
    agent.complete(request("variant"));
    FAIL();
  } catch (const AgentError& e) {
    EXPECT_EQ(e.kind(), AgentError::Kind::kAuth);
  }
  EXPECT_EQ(agent.complete(request("variant")).text, "ok");
}

TEST_F(ReplayAgentTest, ExhaustionNamesTheOrdinalAndRole) {
  ReplayAgent agent(write(R"({"role": "designer", "response": "a"}
{"role": "designer", "response": "b"}
)"));
  agent.complete(request("designer"));
  agent.complete(request("designer"));
  for (int i = 0; i < 2; ++i) {
    try {
      agent.complete(request("designer"));
      FAIL();
    } catch (const AgentError& e) {
      EXPECT_EQ(e.kind(), AgentError::Kind::kBadRequest);
      EXPECT_NE(std::string(e.what()).find("no 3rd answer for role designer (it holds 2)"),
                std::string::npos)
          << e.what();
    }
  }
  try {
    agent.complete(request("summarizer"));
    FAIL();
  } catch (const AgentError& e) {
    EXPECT_NE(std::string(e.what()).find("no 1st answer for role summarizer"), std::string::npos);
  }
}

TEST_F(ReplayAgentTest, BadTranscriptsNameTheLine) {
  const std::string good = R"({"role": "a", "response": "x"})"
                           "\n";
  struct Case {
    std::string text;
    std::string expected;
  };
  const std::vector<Case> cases = {
      {good + "not json\n", ":2: not JSON"},
      {good + good + "[1, 2]\n", ":3: not a JSON object"},
      {good + R"({"response": "x"})"
              "\n",
       ":2: no \"role\""},
      {R"({"role": "a"})"
       "\n",
       ":1: no \"response\""},
      {R"({"role": 3, "response": "x"})"
       "\n",
       ":1: \"role\" is not a string"},
      {R"({"role": "a", "response": "x", "input_tokens": -1})"
       "\n",
       ":1: \"input_tokens\" is below 0"},
      {R"({"role": "a", "response": "x", "output_tokens": 1.5})"
       "\n",
       ":1: \"output_tokens\" is not an integer"},
      {R"({"role": "a", "response": "x", "files": {"a": 1}})"
       "\n",
       ":1: file \"a\" is not a string"},
      {R"({"role": "a", "error": "sleepy"})"
       "\n",
       ":1: unknown error kind \"sleepy\""},
  };
  for (const Case& c : cases) {
    const std::string error = construction_error(c.text);
    EXPECT_NE(error.find("transcript.jsonl" + c.expected), std::string::npos)
        << "got: " << error << "\nfor: " << c.text;
  }
  EXPECT_THROW(ReplayAgent(dir_.path() / "missing.jsonl"), std::runtime_error);
}

TEST_F(ReplayAgentTest, RecordThenReplayIsExact) {
  const fs::path path = dir_.path() / "recorded.jsonl";
  AgentReply designer;
  designer.text = "```cpp\nint f() { return \"\\n\"[0]; }\n```\n\t\"quoted\" ü";
  designer.model = "claude-x";
  designer.input_tokens = 1234;
  designer.output_tokens = 567;
  designer.latency_s = 0.1 + 0.2;  // not exactly representable in short decimal
  designer.attempts = 3;
  designer.truncated = true;
  AgentReply porter;
  porter.text = "";
  porter.files = {{"src/a.cc", "line\n"}, {"b.h", ""}};
  append_transcript_entry(path, "designer", designer);
  append_transcript_error(path, "designer", AgentError(AgentError::Kind::kTimeout, "too slow"));
  append_transcript_entry(path, "porter", porter);

  ReplayAgent agent(path);
  AgentReply got = agent.complete(request("designer"));
  EXPECT_EQ(got.text, designer.text);
  EXPECT_EQ(got.model, designer.model);
  EXPECT_EQ(got.input_tokens, designer.input_tokens);
  EXPECT_EQ(got.output_tokens, designer.output_tokens);
  EXPECT_EQ(got.latency_s, designer.latency_s);
  EXPECT_EQ(got.attempts, designer.attempts);
  EXPECT_EQ(got.truncated, designer.truncated);
  try {
    agent.complete(request("designer"));
    FAIL();
  } catch (const AgentError& e) {
    EXPECT_EQ(e.kind(), AgentError::Kind::kTimeout);
    EXPECT_STREQ(e.what(), "too slow");
  }
  AgentReply got_porter = agent.complete(request("porter"));
  EXPECT_EQ(got_porter.files, porter.files);
  EXPECT_EQ(got_porter.text, "");
}

TEST_F(ReplayAgentTest, ConcurrentCallersShareTheOrder) {
  std::string text;
  for (int i = 0; i < 100; ++i) {
    text += R"({"role": "variant", "response": ")" + std::to_string(i) + "\"}\n";
  }
  ReplayAgent agent(write(text));
  std::vector<std::vector<int>> got(4);
  std::vector<std::thread> threads;
  for (int t = 0; t < 4; ++t) {
    threads.emplace_back([&, t] {
      for (int i = 0; i < 25; ++i)
        got[t].push_back(std::stoi(agent.complete(request("variant")).text));
    });
  }
  for (auto& t : threads) t.join();
  std::vector<bool> seen(100, false);
  for (const auto& answers : got) {
    for (size_t i = 0; i < answers.size(); ++i) {
      if (i > 0) {
        EXPECT_LT(answers[i - 1], answers[i]) << "each thread sees the order";
      }
      EXPECT_FALSE(seen[answers[i]]);
      seen[answers[i]] = true;
    }
  }
  EXPECT_EQ(agent.remaining("variant"), 0u);
}

TEST(ReplayAgentOrdinal, Suffixes) {
  EXPECT_EQ(ordinal(1), "1st");
  EXPECT_EQ(ordinal(2), "2nd");
  EXPECT_EQ(ordinal(3), "3rd");
  EXPECT_EQ(ordinal(4), "4th");
  EXPECT_EQ(ordinal(11), "11th");
  EXPECT_EQ(ordinal(12), "12th");
  EXPECT_EQ(ordinal(13), "13th");
  EXPECT_EQ(ordinal(21), "21st");
  EXPECT_EQ(ordinal(112), "112th");
}

}  // namespace
}  // namespace headway::agents
