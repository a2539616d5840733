// `headway facts --write NAME --agent ...` end to end: the real headway binary, a real HTTP
// server on 127.0.0.1 speaking the OpenAI protocol, and the cpu target building and running the
// program the server answers with in the sandbox.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "agents/test_http_server.h"
#include "cli/cli_test_support.h"
#include "knowledge/facts.h"
#include "knowledge/workspace_target.h"
#include "store/test_temp_dir.h"

namespace headway::cli {
namespace {

constexpr const char* kProgram =
    "```cpp\n#include <cstdio>\nint main() {\n"
    "  for (int k = 1; k <= 5; ++k) std::printf(\"reading %d\\n\", 10 * k);\n}\n```\n";

TEST(FactsWrite, TheAgentsProgramMeasuresANewFactThatIsStoredAndListed) {
  store::TestTempDir tmp;
  const std::string ws = (tmp.path() / "ws").string();
  ASSERT_EQ(run_headway({"init", ws, "--target", "cpu"}).exit_code, 0);
  {  // a measured fact already there, so that the verb does not measure the chip first
    auto opened = store::Workspace::open(ws).value();
    knowledge::store_fact(opened, {"timer_overhead", knowledge::current_toolchain_id(opened), 20.0,
                                   "ns", std::nullopt, "m", ""});
  }
  agents::testing::TestHttpServer server("/v1/chat/completions", [&](int, const httplib::Request&,
                                                                     httplib::Response& res) {
    res.set_content(agents::testing::reply_body("openai", {kProgram, "bench-1", 900, 80, false}),
                    "application/json");
  });
  const CliRun run =
      run_headway({"facts", "--workspace", ws, "--write", "memory.write_bandwidth", "--unit",
                   "GB/s", "--describe", "streaming stores", "--agent", "openai:bench-model",
                   "--agent-base-url", server.base_url(), "--json"});
  ASSERT_EQ(run.exit_code, 0) << run.err;
  const auto j = nlohmann::json::parse(run.out);
  EXPECT_EQ(j["calls"], 1);
  EXPECT_EQ(j["fact"]["name"], "memory.write_bandwidth");
  EXPECT_EQ(j["fact"]["value"], 30.0) << "the median of 10..50";
  EXPECT_EQ(j["fact"]["unit"], "GB/s");
  EXPECT_NE(j["fact"]["method"].get<std::string>().find("agent microbenchmark (call 1, openai"),
            std::string::npos)
      << j.dump(2);

  const CliRun listed = run_headway({"facts", "--workspace", ws});
  EXPECT_NE(listed.out.find("memory.write_bandwidth"), std::string::npos) << listed.out;
  const auto usage =
      nlohmann::json::parse(run_headway({"agents", "usage", "--workspace", ws, "--json"}).out);
  ASSERT_EQ(usage["roles"].size(), 1u) << usage.dump(2);
  EXPECT_EQ(usage["roles"][0]["role"], "microbenchmark");
  EXPECT_EQ(usage["roles"][0]["outcomes"]["fact"], 1);
}

TEST(FactsWrite, BadRequestsExitTwoWithOneLineAndCallNothing) {
  store::TestTempDir tmp;
  const std::string ws = (tmp.path() / "ws").string();
  ASSERT_EQ(run_headway({"init", ws, "--target", "sim"}).exit_code, 0);
  const std::vector<std::pair<std::vector<std::string>, std::string>> cases = {
      {{"--write", "a b", "--unit", "ns", "--describe", "d", "--agent", "replay:/nonexistent"},
       "only letters"},
      {{"--write", "x", "--unit", "ns", "--describe", "d"}, "--write needs --agent"},
      {{"--write", "x", "--describe", "d", "--agent", "replay:/nonexistent"}, "unit"},
      {{"--unit", "ns"}, "--unit and --describe go with --write"},
      {{"--write", "x", "--unit", "ns", "--describe", "d", "--agent", "replay:/x", "--attempts",
        "0"},
       "--attempts"},
  };
  for (const auto& [args, why] : cases) {
    std::vector<std::string> argv = {"facts", "--workspace", ws};
    argv.insert(argv.end(), args.begin(), args.end());
    const CliRun run = run_headway(argv);
    EXPECT_EQ(run.exit_code, 2) << why << "\n" << run.err;
    EXPECT_NE(run.err.find(why), std::string::npos) << run.err;
    EXPECT_EQ(std::count(run.err.begin(), run.err.end(), '\n'), 1) << run.err;
  }
}

TEST(FactsWrite, ATargetWithoutMicrobenchmarksSaysSoAndExitsOne) {
  store::TestTempDir tmp;
  const std::string ws = (tmp.path() / "ws").string();
  ASSERT_EQ(run_headway({"init", ws, "--target", "sim"}).exit_code, 0);
  const auto transcript = tmp.path() / "t.jsonl";
  std::ofstream(transcript) << R"({"role":"microbenchmark","response":"```cpp\nint main(){}\n```"})"
                            << "\n";
  const CliRun run = run_headway({"facts", "--workspace", ws, "--write", "x", "--unit", "ns",
                                  "--describe", "d", "--agent", "replay:" + transcript.string()});
  EXPECT_EQ(run.exit_code, 1) << run.err;
  EXPECT_NE(run.out.find("cannot run microbenchmarks"), std::string::npos) << run.out;
}

}  // namespace
}  // namespace headway::cli
