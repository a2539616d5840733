#include "agents/microbenchmark_writer.h"

#include <gtest/gtest.h>

#include "agents/agent_test_support.h"
#include "agents/replay_agent.h"
#include "store/test_temp_dir.h"
#include "targets/registry/registry.h"

namespace headway::agents {
namespace {

TEST(ParseReadings, TakesEveryReadingLineAndIgnoresTheRest) {
  const Readings r =
      parse_readings("warming up\n  reading 1.5\nreading 2e3\r\nnote: x\nreading -4\n");
  ASSERT_TRUE(r.ok()) << r.malformed;
  EXPECT_EQ(r.values, (std::vector<double>{1.5, 2000.0, -4.0}));
}

TEST(ParseReadings, TooFewOrANonNumberIsUnusableWithTheLine) {
  EXPECT_NE(parse_readings("reading 1\nreading 2\n").malformed.find("2 `reading <number>` lines"),
            std::string::npos);
  const Readings bad = parse_readings("reading 1\nreading 2\nreading fast\nreading 3\n");
  EXPECT_NE(bad.malformed.find("line 3"), std::string::npos) << bad.malformed;
  EXPECT_FALSE(parse_readings("reading 1\nreading 2\nreading nan\n").ok());
  EXPECT_FALSE(parse_readings("reading 1\nreading 2\nreading 3 GB/s\n").ok());
  EXPECT_FALSE(parse_readings("").ok());
}

TEST(CheckFactToMeasure, NameUnitAndDescriptionAreRequired) {
  EXPECT_EQ(check_fact_to_measure({"memory.write_bandwidth", "GB/s", "streaming writes"}), "");
  EXPECT_NE(check_fact_to_measure({"", "GB/s", "x"}), "");
  EXPECT_NE(check_fact_to_measure({"a b", "GB/s", "x"}).find("only letters"), std::string::npos);
  EXPECT_NE(check_fact_to_measure({"a", "", "x"}).find("unit"), std::string::npos);
  EXPECT_NE(check_fact_to_measure({"a", "ns", "  \n"}).find("description"), std::string::npos);
}

// A program that prints `reading k` for k = 1..11 (median 6) unless it can see `secret`.
std::string counting_program(const std::string& secret) {
  return "#include <cstdio>\nint main() {\n  if (std::FILE* f = std::fopen(\"" + secret +
         "\", \"r\")) { std::puts(\"saw the workspace\"); return 0; }\n"
         "  for (int k = 1; k <= 11; ++k) std::printf(\"reading %d\\n\", k);\n}\n";
}

class MicrobenchmarkWriterTest : public ::testing::Test {
 protected:
  void SetUp() override {
    ws.emplace(store::Workspace::create(dir.path() / "ws").value());
    target = targets::make_target("cpu");
    options.cache_dir = dir.path() / "builds";
    options.timeout_s = 20;
  }
  std::filesystem::path transcript(const std::vector<nlohmann::json>& entries) {
    return testing::write_transcript(dir.path() / "t.jsonl", entries);
  }
  static nlohmann::json answer(const std::string& text) {
    return {{"role", "microbenchmark"}, {"response", text}, {"model", "m1"}};
  }
  std::vector<std::string> column(const char* sql) {
    std::vector<std::string> out;
    auto st = ws->db().prepare(sql);
    while (st.step()) out.push_back(st.text(0));
    return out;
  }
  std::vector<std::string> outcomes() {
    return column("SELECT outcome FROM agent_calls ORDER BY id");
  }
  store::TestTempDir dir;
  std::optional<store::Workspace> ws;
  std::unique_ptr<targets::Target> target;
  MicrobenchmarkOptions options;
  const FactToMeasure fact{"memory.write_bandwidth", "GB/s", "streaming stores, all cores"};
};

TEST_F(MicrobenchmarkWriterTest, FailuresGoBackToTheAgentAndAWorkingProgramBecomesAFact) {
  const std::string db = (dir.path() / "ws" / ".headway").string();
  ReplayAgent agent(transcript({
      answer("I would time a memset."),                               // no code
      answer("```cpp\nint main() { return undeclared_name; }\n```"),  // does not build
      answer("```cpp\n#include <cstdio>\nint main() { std::puts(\"reading 1\"); }\n```"),  // 1
      answer("```cpp\n" + counting_program(db) + "```"),
  }));
  AgentLedger ledger(*ws, agent);
  options.attempts = 4;
  std::vector<std::string> log;
  const MicrobenchmarkResult r = write_microbenchmark(
      ledger, *ws, *target, "tc-1", fact, options, [&](const std::string& l) { log.push_back(l); });
  ASSERT_TRUE(r.fact) << r.failure;
  EXPECT_EQ(r.calls, 4);
  EXPECT_EQ(r.fact->value, 6.0) << "the median of 1..11, and the workspace was not visible";
  EXPECT_EQ(r.fact->unit, "GB/s");
  EXPECT_EQ(r.fact->toolchain, "tc-1");
  ASSERT_TRUE(r.fact->spread);
  EXPECT_GT(*r.fact->spread, 40.0);
  EXPECT_EQ(r.fact->method.rfind(kAgentMethodPrefix, 0), 0u) << r.fact->method;
  EXPECT_NE(r.fact->method.find("median of 11 readings"), std::string::npos) << r.fact->method;
  // The program is kept: the method names its artifact.
  const std::string hash = r.fact->method.substr(r.fact->method.rfind(' ') + 1);
  ASSERT_TRUE(ws->artifacts().get(hash)) << r.fact->method;
  EXPECT_NE(ws->artifacts().get(hash)->find("reading %d"), std::string::npos);
  EXPECT_EQ(outcomes(),
            (std::vector<std::string>{"malformed", "build-failed", "malformed", "fact"}));
  ASSERT_EQ(log.size(), 4u);
  EXPECT_NE(log[1].find("did not build"), std::string::npos) << log[1];
  EXPECT_NE(log[2].find("1 `reading <number>` lines"), std::string::npos) << log[2];
  // The second prompt carried the first failure, the third the compiler's diagnostics.
  std::vector<std::string> prompts;
  for (const auto& h : column("SELECT prompt_hash FROM agent_calls ORDER BY id"))
    prompts.push_back(ws->artifacts().get(h).value_or(""));
  ASSERT_EQ(prompts.size(), 4u);
  EXPECT_EQ(prompts[0].find("previous program"), std::string::npos);
  EXPECT_NE(prompts[1].find("no usable program"), std::string::npos);
  EXPECT_NE(prompts[2].find("undeclared_name"), std::string::npos);
  EXPECT_NE(prompts[0].find("memory.write_bandwidth"), std::string::npos);
  EXPECT_NE(prompts[0].find("streaming stores, all cores"), std::string::npos);
}

TEST_F(MicrobenchmarkWriterTest, ACrashingProgramIsReportedAndAttemptsAreBounded) {
  ReplayAgent agent(transcript({
      answer("```cpp\n#include <cstdlib>\nint main() { std::abort(); }\n```"),
      answer("```cpp\nint main() { for (;;) {} }\n```"),
  }));
  AgentLedger ledger(*ws, agent);
  options.attempts = 2;
  options.timeout_s = 2;
  const MicrobenchmarkResult r = write_microbenchmark(ledger, *ws, *target, "tc-1", fact, options);
  EXPECT_FALSE(r.fact);
  EXPECT_EQ(r.calls, 2);
  EXPECT_NE(r.failure.find("ran past its 2 s"), std::string::npos) << r.failure;
  EXPECT_EQ(outcomes(), (std::vector<std::string>{"run-failed", "run-failed"}));
  EXPECT_FALSE(knowledge::find_fact(*ws, fact.name, "tc-1"));
}

TEST_F(MicrobenchmarkWriterTest, AFactTheTargetMeasuresItselfIsRefusedWithoutACall) {
  knowledge::store_fact(*ws, {"memory.write_bandwidth", "tc-1", 10.0, "GB/s", std::nullopt,
                              "median of 11 streaming writes", ""});
  ReplayAgent agent(transcript({answer("```cpp\nint main() {}\n```")}));
  AgentLedger ledger(*ws, agent);
  const MicrobenchmarkResult r = write_microbenchmark(ledger, *ws, *target, "tc-1", fact, options);
  EXPECT_FALSE(r.fact);
  EXPECT_EQ(r.calls, 0);
  EXPECT_NE(r.failure.find("own microbenchmarks"), std::string::npos) << r.failure;
  EXPECT_EQ(knowledge::find_fact(*ws, fact.name, "tc-1")->value, 10.0) << "left as it was";
}

TEST_F(MicrobenchmarkWriterTest, AnAgentsEarlierFactIsMeasuredAgain) {
  knowledge::store_fact(*ws, {"memory.write_bandwidth", "tc-1", 1.0, "GB/s", std::nullopt,
                              std::string(kAgentMethodPrefix) + " (call 1)", ""});
  ReplayAgent agent(transcript({answer("```cpp\n" + counting_program("/nonexistent") + "```")}));
  AgentLedger ledger(*ws, agent);
  const MicrobenchmarkResult r = write_microbenchmark(ledger, *ws, *target, "tc-1", fact, options);
  ASSERT_TRUE(r.fact) << r.failure;
  EXPECT_EQ(r.fact->value, 6.0);
}

TEST_F(MicrobenchmarkWriterTest, ATargetWithoutMicrobenchmarksIsRefused) {
  auto sim = targets::make_target("sim");
  ReplayAgent agent(transcript({answer("```cpp\nint main() {}\n```")}));
  AgentLedger ledger(*ws, agent);
  const MicrobenchmarkResult r = write_microbenchmark(ledger, *ws, *sim, "tc-1", fact, options);
  EXPECT_EQ(r.calls, 0);
  EXPECT_NE(r.failure.find("cannot run microbenchmarks"), std::string::npos) << r.failure;
}

}  // namespace
}  // namespace headway::agents
