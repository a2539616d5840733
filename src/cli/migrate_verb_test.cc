// `headway facts`, `headway rules` and `headway migrate` as a user runs them: a real binary.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "common/subprocess.h"
#include "knowledge/facts.h"
#include "knowledge/rules.h"
#include "store/test_temp_dir.h"
#include "store/workspace.h"

namespace headway {
namespace {

ProcessResult headway(std::vector<std::string> args) {
  args.insert(args.begin(), HEADWAY_BINARY);
  return run_process(args, 120.0);
}

TEST(MigrateVerb, RefusesAMissingCompilerAndListsFactsAndRules) {
  store::TestTempDir dir;
  {
    auto ws = store::Workspace::create(dir.path()).value();
    knowledge::store_fact(ws, {knowledge::kReadBandwidth, knowledge::current_cpu_toolchain_id(ws), 7.25,
                               "GB/s", std::nullopt, "test", ""});
    ASSERT_TRUE(knowledge::record_build_failure(ws, "qkv", 1, "int a = b;",
                                                "a.cc:1:9: error: 'b' was not declared in this scope",
                                                "tc").ok());
  }
  const std::string w = dir.path().string();
  const auto missing = headway({"migrate", "--toolchain", "/nonexistent/c++", "--workspace", w});
  EXPECT_EQ(missing.exit_code, 2) << missing.output;
  EXPECT_EQ(missing.output.rfind("headway: cannot use toolchain '/nonexistent/c++'", 0), 0u) << missing.output;
  {
    auto ws = store::Workspace::open(dir.path()).value();
    EXPECT_FALSE(ws.meta("cpu.toolchain"));
  }

  const auto facts = headway({"facts", "--json", "--workspace", w});
  ASSERT_EQ(facts.exit_code, 0) << facts.output;
  const auto fj = nlohmann::json::parse(facts.output);
  EXPECT_FALSE(fj["measured"].get<bool>());
  ASSERT_EQ(fj["facts"].size(), 1u);
  EXPECT_DOUBLE_EQ(fj["facts"][0]["value"].get<double>(), 7.25);

  const auto rules = headway({"rules", "--json", "--workspace", w});
  ASSERT_EQ(rules.exit_code, 0) << rules.output;
  const auto rj = nlohmann::json::parse(rules.output);
  ASSERT_EQ(rj.size(), 1u);
  EXPECT_EQ(rj[0]["signature"], "error: '<id>' was not declared in this scope");
  EXPECT_EQ(rj[0]["status"]["tc"]["status"], "verified");
  const auto text = headway({"rules", "--workspace", w});
  EXPECT_NE(text.output.find("verified           tc"), std::string::npos) << text.output;
}

}  // namespace
}  // namespace headway
