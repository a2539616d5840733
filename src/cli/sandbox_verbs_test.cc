// The sandbox as a user meets it: the refusal where bwrap is missing, --no-sandbox, and the
// warning in `headway status`. A real binary; HEADWAY_BWRAP names a bwrap that does not exist.
#include <gtest/gtest.h>
#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <nlohmann/json.hpp>

#include "common/subprocess.h"
#include "store/test_temp_dir.h"

namespace headway {
namespace {

namespace fs = std::filesystem;

class SandboxVerbs : public ::testing::Test {
 protected:
  void SetUp() override {
    setenv("HEADWAY_CACHE_DIR", (dir_.path() / "cache").c_str(), 1);
    setenv("HEADWAY_BWRAP", "/nonexistent/bwrap", 1);
  }
  void TearDown() override {
    unsetenv("HEADWAY_BWRAP");
    unsetenv("HEADWAY_CACHE_DIR");
  }
  static ProcessResult headway(std::vector<std::string> args, const fs::path& cwd = {}) {
    args.insert(args.begin(), HEADWAY_BINARY);
    return run_process(args, 120.0, cwd.string());
  }
  static std::string baseline() {
    return (fs::path(HEADWAY_SOURCE_DIR) / "kernels/baselines/attn_out.cc").string();
  }
  store::TestTempDir dir_;
};

TEST_F(SandboxVerbs, WithoutBwrapCandidateCodeIsRefusedInOneLine) {
  const auto r = headway({"check", "--kernel", "attn_out", "--source", baseline()});
  EXPECT_EQ(r.exit_code, 3) << r.output;
  EXPECT_EQ(r.output,
            "headway: cannot sandbox candidate code: bwrap is not installed (/nonexistent/bwrap is "
            "not an executable file) (install bubblewrap, or pass --no-sandbox)\n");
  EXPECT_FALSE(fs::exists(dir_.path() / "cache") && !fs::is_empty(dir_.path() / "cache"))
      << "nothing was built";
}

TEST_F(SandboxVerbs, NoSandboxRunsWithAWarningAndStatusRemembersIt) {
  const fs::path ws = dir_.path() / "ws";
  ASSERT_EQ(headway({"init", ws.string()}).exit_code, 0);
  const auto quiet = headway({"status"}, ws);
  EXPECT_EQ(quiet.exit_code, 0) << quiet.output;
  EXPECT_EQ(quiet.output.find("not sandboxed"), std::string::npos) << quiet.output;

  const auto r = headway(
      {"--no-sandbox", "check", "--kernel", "attn_out", "--source", baseline(), "--seed", "3"}, ws);
  EXPECT_EQ(r.exit_code, 0) << r.output;
  EXPECT_NE(
      r.output.find("headway: warning: --no-sandbox: candidate code runs without isolation\n"),
      std::string::npos)
      << r.output;
  EXPECT_NE(r.output.find("correct (seed 3)"), std::string::npos) << r.output;

  // A verb that runs no candidate code records nothing, but still warns.
  const auto status = headway({"--no-sandbox", "status"}, ws);
  EXPECT_EQ(status.exit_code, 0) << status.output;
  EXPECT_NE(status.output.find("--no-sandbox: candidate code runs without isolation"),
            std::string::npos);
  EXPECT_NE(status.output.find("warning: 1 run of candidate code was not sandboxed; last at 20"),
            std::string::npos)
      << status.output;
  EXPECT_NE(status.output.find("(headway --no-sandbox check --kernel attn_out"), std::string::npos)
      << status.output;
  const auto json = headway({"status", "--json"}, ws);
  ASSERT_EQ(json.exit_code, 0) << json.output;
  EXPECT_EQ(nlohmann::json::parse(json.output)["unsandboxed_runs"]["count"], 1) << json.output;
}

}  // namespace
}  // namespace headway
