// `headway compare` on the targets other than cpu, and its bad inputs (the cpu target's runs are in
// json_verbs_test.cc). It runs the loop's acceptance procedure (loop/acceptance_procedure.h).
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "cli/cli_test_support.h"
#include "common/file_io.h"
#include "store/test_temp_dir.h"

namespace headway::cli {
namespace {

namespace fs = std::filesystem;

class CompareVerb : public ::testing::Test {
 protected:
  // A sim source whose true time is `factor` x the kernel's sim baseline (targets/sim).
  std::string sim_source(const std::string& name, const std::string& text) {
    const fs::path path = tmp_.path() / name;
    write_file(path, text);
    return path.string();
  }
  nlohmann::json compare_json(const std::vector<std::string>& extra, int expected_exit = 0) {
    std::vector<std::string> args = {"compare", "--json", "--seed", "3"};
    args.insert(args.end(), extra.begin(), extra.end());
    const CliRun r = run_headway(args, "", 300.0);
    EXPECT_EQ(r.exit_code, expected_exit) << r.err;
    return nlohmann::json::parse(r.out);
  }
  store::TestTempDir tmp_;
};

TEST_F(CompareVerb, OnTheSimTargetTheEffectIsTheTimeTheCandidateSaves) {
  const std::string a = sim_source("a.sim", "sim-x 1\n");
  const std::string b = sim_source("b.sim", "sim-x 0.5\n");
  const auto faster = compare_json({"--target", "sim", "--kernel", "attn_out", "--a", a, "--b", b});
  EXPECT_EQ(faster["outcome"], "FASTER") << faster.dump(2);
  EXPECT_EQ(faster["target"], "sim");
  EXPECT_NEAR(faster["effect_pct"].get<double>(), 50.0, 3.0) << "half of A's time saved";
  EXPECT_LT(faster["ci_pct"][0].get<double>(), faster["ci_pct"][1].get<double>());
  EXPECT_GT(faster["warmup_readings"].get<int>(), 0);

  const auto slower = compare_json({"--target", "sim", "--kernel", "attn_out", "--a", b, "--b", a});
  EXPECT_EQ(slower["outcome"], "SLOWER") << slower.dump(2);
  EXPECT_NEAR(slower["effect_pct"].get<double>(), -100.0, 5.0) << "B takes twice A's time";
}

TEST_F(CompareVerb, TheRuleIsTheLoopsAndCanBeSwappedByName) {
  const std::string a = sim_source("a.sim", "sim-x 1\n");
  const std::string b = sim_source("b.sim", "sim-x 0.7\n");
  const auto j = compare_json({"--target", "sim", "--kernel", "qkv", "--a", a, "--b", b,
                               "--acceptance-rule", "lowest-mean"});
  EXPECT_EQ(j["rule_config"]["rule"], "lowest-mean");
  EXPECT_EQ(j["pairs"], 7) << "the fixed-sample rules take 7 pairs";
  EXPECT_EQ(j["warmup_readings"], 0) << "only betting takes a prior";
  EXPECT_EQ(j["outcome"], "FASTER");
}

TEST_F(CompareVerb, EveryShapeSetOfASpecKernelTakesPart) {
  const std::string a = sim_source("a.sim", "sim-x 1\n");
  const std::string b = sim_source("b.sim", "sim-x 0.8\n");
  const std::string spec = std::string(HEADWAY_SOURCE_DIR) + "/kernels/specs/rmsnorm/rmsnorm.toml";
  const auto j = compare_json({"--target", "sim", "--kernel", spec, "--a", a, "--b", b});
  EXPECT_EQ(j["shape_sets"], nlohmann::json::array({"gemma4", "small"})) << j.dump(2);
  EXPECT_EQ(j["outcome"], "FASTER");
  // The pairs ran at both shape sets, not only the first.
  const auto& per_set = j["device_time"]["pairs_per_device"];
  ASSERT_EQ(per_set.size(), 2u) << j.dump(2);
  EXPECT_GT(per_set[0].get<int>(), 0);
  EXPECT_GT(per_set[1].get<int>(), 0);
}

TEST_F(CompareVerb, ACandidateFoundCheatingIsCheatedWithExitOne) {
  const std::string a = sim_source("a.sim", "sim-x 1\n");
  const std::string b = sim_source("b.sim", "sim-x 0.5\nsim-cheat\n");
  const auto j = compare_json({"--target", "sim", "--kernel", "ffn", "--a", a, "--b", b}, 1);
  EXPECT_EQ(j["outcome"], "CHEATED");
  EXPECT_EQ(j["arm"], "candidate");
  EXPECT_EQ(j["source"], b);
}

TEST_F(CompareVerb, AWrongCandidateIsRefusedBeforeAnyPair) {
  const std::string a = sim_source("a.sim", "sim-x 1\n");
  const std::string b = sim_source("b.sim", "sim-x 0.5\nsim-wrong\n");
  const CliRun r =
      run_headway({"compare", "--target", "sim", "--kernel", "qkv", "--a", a, "--b", b});
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_NE(r.err.find(b + " is not correct"), std::string::npos) << r.err;
  EXPECT_TRUE(r.out.empty()) << r.out;
}

TEST_F(CompareVerb, OnTheCommandTargetAPacksKernelIsCompared) {
  const fs::path pack = fs::path(HEADWAY_SOURCE_DIR) / "packs/standin";
  const std::string plain = file_text(pack / "repo/kernels/attn_out.tk");
  std::string wide = plain;
  for (const auto& [from, to] : {std::pair{"tile 16", "tile 64"}, {"vector 16", "vector 32"}}) {
    const auto at = wide.find(from);
    ASSERT_NE(at, std::string::npos) << from;
    wide.replace(at, std::string(from).size(), to);
  }
  const std::string header = "// headway-file: kernels/attn_out.tk\n";
  const std::string a = sim_source("a.tk", header + plain);
  const std::string b = sim_source("b.tk", header + wide);
  const auto j = compare_json({"--target", "command", "--manifest", (pack / "target.toml").string(),
                               "--kernel", "attn_out", "--a", a, "--b", b});
  EXPECT_EQ(j["target"], "command");
  EXPECT_EQ(j["outcome"], "FASTER") << j.dump(2);
  EXPECT_GT(j["effect_pct"].get<double>(), 0.0);
}

TEST_F(CompareVerb, BadTargetsAndRulesAreUsageErrors) {
  const std::string a = sim_source("a.sim", "sim-x 1\n");
  const std::string manifest = std::string(HEADWAY_SOURCE_DIR) + "/packs/standin/target.toml";
  const struct {
    std::vector<std::string> args;
    std::string says;
  } cases[] = {
      {{"--target", "command"}, "--target command needs --manifest"},
      {{"--target", "cpu", "--manifest", manifest}, "--manifest is for --target command"},
      {{"--target", "command", "--manifest", manifest, "--toolchain", "x"},
       "give one of --manifest and --toolchain"},
      {{"--target", "nowhere"}, "target 'nowhere' is not available"},
      {{"--target", "sim", "--acceptance-rule", "coin"}, "betting"},
      {{"--target", "sim", "--alpha", "2"}, "alpha"},
  };
  for (const auto& c : cases) {
    std::vector<std::string> args = {"compare", "--kernel", "qkv", "--a", a, "--b", a};
    args.insert(args.end(), c.args.begin(), c.args.end());
    const CliRun r = run_headway(args);
    EXPECT_EQ(r.exit_code, 2) << c.says << ": " << r.err;
    EXPECT_NE(r.err.find(c.says), std::string::npos) << r.err;
  }
}

}  // namespace
}  // namespace headway::cli
