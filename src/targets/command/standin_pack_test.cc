// The command target end to end, as a user runs it: the real headway binary on a copy of
// packs/standin (its stand-in toolchain in the sandbox), init -> onboard -> optimize -> status.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <regex>
#include <set>
#include <sstream>

#include "common/subprocess.h"
#include "store/test_temp_dir.h"

namespace headway {
namespace {

namespace fs = std::filesystem;

ProcessResult headway(std::vector<std::string> args, double timeout = 120.0) {
  args.insert(args.begin(), HEADWAY_BINARY);
  return run_process(args, timeout);
}

std::string slurp(const fs::path& p) {
  std::ifstream in(p);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

// A copy of the pack whose manifest has `from` replaced by `to`.
fs::path pack_copy(const fs::path& where, const std::string& from, const std::string& to) {
  fs::copy(fs::path(HEADWAY_SOURCE_DIR) / "packs/standin", where, fs::copy_options::recursive);
  std::string text = slurp(where / "target.toml");
  const size_t at = text.find(from);
  EXPECT_NE(at, std::string::npos) << from;
  if (at != std::string::npos) text.replace(at, from.size(), to);
  std::ofstream(where / "target.toml") << text;
  return where / "target.toml";
}

int count(const std::string& text, const std::string& what) {
  int n = 0;
  for (size_t at = text.find(what); at != std::string::npos; at = text.find(what, at + 1)) ++n;
  return n;
}

TEST(StandinPack, OptimizesQkvWithStaticCostJobsRetriesAndRules) {
  store::TestTempDir dir;
  // Every 6th job fails as a whole (the device's fault): retried, never scored.
  const fs::path manifest = pack_copy(dir.path() / "pack", "STANDIN_FAIL_RATE = \"0.05\"",
                                      "STANDIN_FAIL_RATE = \"0\", STANDIN_FAIL_EVERY = \"6\"");
  const fs::path ws = dir.path() / "ws";
  auto r = headway({"init", ws.string(), "--target", "command", "--manifest", manifest.string()});
  ASSERT_EQ(r.exit_code, 0) << r.output;
  if (r = headway({"onboard", "--workspace", ws.string()}); r.exit_code == 3)
    GTEST_SKIP() << "no sandbox: " << r.output;
  ASSERT_EQ(r.exit_code, 0) << r.output;
  EXPECT_NE(r.output.find("toolchain: command:standin:0.9.2"), std::string::npos) << r.output;
  r = headway({"optimize", "--kernels", "qkv", "--budget", "45s", "--workspace", ws.string()}, 300);
  ASSERT_EQ(r.exit_code, 0) << r.output;
  const std::string optimize = r.output;

  r = headway({"status", "--json", "--workspace", ws.string()});
  ASSERT_EQ(r.exit_code, 0) << r.output;
  const auto status = nlohmann::json::parse(r.output);
  const auto& qkv = status["kernels"][0];
  // Progress: a head faster than the baseline, accepted by the betting test on in-job pairs.
  EXPECT_GT(qkv["speedup"].get<double>(), 1.5) << r.output << optimize;
  EXPECT_GE(qkv["tests"].value("FASTER", 0), 1) << r.output;
  // Build failures (the 128-lane design) and the oracle's failures (a ragged split) are results.
  EXPECT_GE(qkv["nodes"].value("build-failed", 0), 1) << r.output;
  // Screen calibration from the static cost, in the JSON and the text.
  EXPECT_GE(status["screen_calibration"]["candidates"].get<int>(), 3) << r.output;
  EXPECT_FALSE(status["screen_calibration"]["spearman"].is_null()) << r.output;
  r = headway({"status", "--workspace", ws.string()});
  EXPECT_NE(r.output.find("screen calibration (static cost against the device, every kernel):"),
            std::string::npos)
      << r.output;
  EXPECT_NE(r.output.find("Spearman rank correlation"), std::string::npos) << r.output;

  // The compile error became a legality rule.
  r = headway({"rules", "--workspace", ws.string()});
  EXPECT_NE(r.output.find("vector width <n> exceeds the <n>-lane datapath"), std::string::npos)
      << r.output;

  // Jobs: races ran several arms per job (survivors and the head), pairs two, and the failed
  // jobs were retried.
  const std::string jobs = slurp(ws / ".headway/builds/command/jobs.log");
  EXPECT_GE(count(jobs, "\"outcome\":\"retried\""), 1) << jobs;
  EXPECT_EQ(count(jobs, "\"outcome\":\"failed\""), 0) << jobs;
  EXPECT_GE(count(jobs, "\"arms\":2,"), 10) << jobs;
  EXPECT_TRUE(std::regex_search(jobs, std::regex("\"arms\":[3-6],"))) << jobs;
  // The tree shows candidates the static cost kept out of the race.
  r = headway({"tree", "qkv", "--workspace", ws.string()});
  EXPECT_NE(r.output.find("static cost"), std::string::npos) << r.output;
}

TEST(StandinPack, TheJobBudgetRunningOutEndsTheRun) {
  store::TestTempDir dir;
  const fs::path manifest = pack_copy(dir.path() / "pack", "jobs = 0 ", "jobs = 40 ");
  const fs::path ws = dir.path() / "ws";
  auto r = headway({"init", ws.string(), "--target", "command", "--manifest", manifest.string()});
  ASSERT_EQ(r.exit_code, 0) << r.output;
  r = headway({"optimize", "--kernels", "qkv", "--budget", "5m", "--workspace", ws.string()}, 300);
  if (r.exit_code == 3) GTEST_SKIP() << "no sandbox: " << r.output;
  ASSERT_EQ(r.exit_code, 0) << r.output;
  EXPECT_NE(r.output.find("device stopped: the device budget is spent: 40 of 40 jobs"),
            std::string::npos)
      << r.output;
  EXPECT_LE(count(slurp(ws / ".headway/builds/command/jobs.log"), "\"job\":"), 40);
}

// A kernel language with `#` comments and no preprocessor (packs/standin-py: the stand-in
// toolchain's Python-style dialect, where a `//` line is a syntax error and `#define` only a
// comment): its design library builds with its parameters set by headway, and a design becomes
// the head, also of rmsnorm, a kernel headway has no contract of (the manifest gives its bytes).
// Without its [language] table the same pack is refused at init, naming a design.
TEST(StandinPack, ALanguageWithHashCommentsAndNoPreprocessorGetsItsDesignsBuilt) {
  store::TestTempDir dir;
  for (const char* pack : {"standin", "standin-py"}) {
    fs::copy(fs::path(HEADWAY_SOURCE_DIR) / "packs" / pack, dir.path() / pack,
             fs::copy_options::recursive);
  }
  const fs::path manifest = dir.path() / "standin-py/target.toml";
  const fs::path ws = dir.path() / "ws";
  auto r = headway({"init", ws.string(), "--target", "command", "--manifest", manifest.string()});
  ASSERT_EQ(r.exit_code, 0) << r.output;
  r = headway(
      {"optimize", "--kernels", "qkv,rmsnorm", "--budget", "60s", "--workspace", ws.string()}, 300);
  if (r.exit_code == 3) GTEST_SKIP() << "no sandbox: " << r.output;
  ASSERT_EQ(r.exit_code, 0) << r.output;
  const std::string optimize = r.output;
  r = headway({"status", "--json", "--workspace", ws.string()});
  ASSERT_EQ(r.exit_code, 0) << r.output;
  std::set<std::string> optimized;
  const auto status = nlohmann::json::parse(r.output);
  for (const auto& k : status["kernels"]) {
    optimized.insert(k["name"].get<std::string>());
    EXPECT_GT(k["speedup"].get<double>(), 1.5) << r.output << optimize;
    EXPECT_NE(k["head_design"].get<std::string>(), "baseline") << r.output;
    EXPECT_FALSE(k["head_params"].empty()) << r.output;
    if (k["name"] == "rmsnorm") {  // its floor: the declared 6,000,000 bytes at 1500 GB/s
      EXPECT_NEAR(k["floor_ms"].get<double>(), 0.004, 1e-9) << r.output;
    }
  }
  EXPECT_EQ(optimized, (std::set<std::string>{"qkv", "rmsnorm"})) << r.output;

  // Every file headway wrote is the language's own: no marker, header or placeholder of headway's.
  int written = 0;
  for (const auto& e : fs::recursive_directory_iterator(ws / ".headway/builds/command")) {
    if (e.path().filename() != "qkv.py") continue;
    const std::string text = slurp(e.path());
    EXPECT_EQ(text.find("headway-"), std::string::npos) << e.path() << "\n" << text;
    EXPECT_EQ(text.find("{{"), std::string::npos) << e.path() << "\n" << text;
    EXPECT_EQ(text.find("P_"), std::string::npos) << e.path() << "\n" << text;
    ++written;
  }
  EXPECT_GE(written, 5);
  // The only compile errors are the device's (the 128-lane design), none of the language's.
  r = headway({"rules", "--workspace", ws.string()});
  EXPECT_NE(r.output.find("vector width <n> exceeds the <n>-lane datapath"), std::string::npos)
      << r.output;
  EXPECT_EQ(r.output.find("invalid syntax"), std::string::npos) << r.output;
  EXPECT_EQ(r.output.find("is not defined"), std::string::npos) << r.output;

  std::string text = slurp(manifest);
  const size_t from = text.find("[language]");
  ASSERT_NE(from, std::string::npos);
  text.erase(from, text.find("[device]") - from);
  std::ofstream(manifest) << text;
  r = headway({"init", (dir.path() / "ws2").string(), "--target", "command", "--manifest",
               manifest.string()});
  EXPECT_EQ(r.exit_code, 2) << r.output;
  EXPECT_TRUE(
      std::regex_search(r.output, std::regex("standin-py/designs/[a-z_]+/[a-z_]+\\.py:1: design: "
                                             "missing `// headway-design: NAME`")))
      << r.output;
}

TEST(StandinPack, ABadManifestIsRejectedByInitWithItsLine) {
  store::TestTempDir dir;
  const fs::path manifest =
      pack_copy(dir.path() / "pack", "example = \"standin 0.9.2", "example = \"version 0.9.2");
  const auto r = headway({"init", (dir.path() / "ws").string(), "--target", "command", "--manifest",
                          manifest.string()});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_EQ(
      r.output,
      "headway: " + manifest.string() +
          ":36: the toolchain_version parser does not match its example: regex 'standin "
          "([0-9][0-9.]*)' "
          "matches nothing in: version 0.9.2 (stand-in toolchain for headway; no real hardware)\n");
  EXPECT_FALSE(fs::exists(dir.path() / "ws"));
}

}  // namespace
}  // namespace headway
