// The conventions every verb shares, as a user meets them: one-line errors on stderr with the
// documented exit statuses, --help and --version on stdout.
#include "cli/app.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <fstream>
#include <nlohmann/json.hpp>
#include <regex>
#include <utility>

#include "cli/cli_test_support.h"
#include "common/build_info.h"
#include "store/schema.h"
#include "store/test_temp_dir.h"
#include "store/workspace.h"

namespace headway::cli {
namespace {

namespace fs = std::filesystem;

// Exactly one line, "headway: " first.
void expect_one_error_line(const CliRun& r) {
  EXPECT_EQ(r.err.rfind("headway: ", 0), 0u) << r.err;
  EXPECT_EQ(r.err.find('\n'), r.err.size() - 1) << r.err;
}

TEST(CliConventions, OutsideAWorkspaceEveryWorkspaceVerbSaysSoInOneLine) {
  store::TestTempDir dir;  // under the temp dir: no workspace above it
  for (const auto& args : std::vector<std::vector<std::string>>{{"status"},
                                                                {"status", "--json"},
                                                                {"tree", "qkv"},
                                                                {"optimize"},
                                                                {"facts"},
                                                                {"docs", "diff"},
                                                                {"report"}}) {
    const CliRun r = run_headway(args, dir.path().string());
    ASSERT_TRUE(r.problem.empty()) << r.problem;
    EXPECT_EQ(r.exit_code, 2) << args[0];
    EXPECT_EQ(r.out, "") << args[0];
    expect_one_error_line(r);
    EXPECT_EQ(r.err, "headway: no headway workspace in " +
                         fs::weakly_canonical(dir.path()).string() +
                         " or any parent directory (run 'headway init')\n");
  }
}

TEST(CliConventions, UsageErrorsAreOneLineWithExitTwo) {
  const std::vector<std::pair<std::vector<std::string>, std::string>> cases = {
      {{}, "headway: a verb is required (see 'headway --help')\n"},
      {{"frobnicate"}, "headway: unknown verb 'frobnicate' (see 'headway --help')\n"},
      {{"--frobnicate"}, "headway: unknown option '--frobnicate' (see 'headway --help')\n"},
      {{"check"}, "headway: --kernel is required (see 'headway check --help')\n"},
      {{"docs"}, "headway: headway docs needs a subcommand (see 'headway docs --help')\n"},
      {{"tree", "qkv", "--format"}, ""},
  };
  for (const auto& [args, expected] : cases) {
    const CliRun r = run_headway(args);
    ASSERT_TRUE(r.problem.empty()) << r.problem;
    EXPECT_EQ(r.exit_code, 2) << r.err;
    EXPECT_EQ(r.out, "");
    expect_one_error_line(r);
    if (!expected.empty()) {
      EXPECT_EQ(r.err, expected);
    }
  }
}

// The exit status follows the kind of failure, not where it happened: a workspace database that
// cannot be read is the environment's problem (3), even while the workspace is being opened; a
// bad argument or a kernel the workspace lacks is the user's (2).
TEST(CliConventions, ACorruptWorkspaceDatabaseExitsThreeAndABadArgumentTwo) {
  store::TestTempDir dir;
  const std::string w = dir.path().string();
  const CliRun init = run_headway({"init", w});
  ASSERT_TRUE(init.problem.empty()) << init.problem;
  ASSERT_EQ(init.exit_code, 0) << init.err;

  const CliRun unknown_kernel = run_headway({"tree", "no_such_kernel", "--workspace", w});
  ASSERT_TRUE(unknown_kernel.problem.empty()) << unknown_kernel.problem;
  EXPECT_EQ(unknown_kernel.exit_code, 2) << unknown_kernel.err;
  expect_one_error_line(unknown_kernel);

  const fs::path db = store::Workspace::database_path(dir.path());
  for (const char* suffix : {"-wal", "-shm"}) fs::remove(db.string() + suffix);
  {
    std::ofstream garbage(db, std::ios::binary | std::ios::trunc);
    garbage << std::string(4096, 'x');
  }
  for (const auto& args : std::vector<std::vector<std::string>>{{"status", "--workspace", w},
                                                                {"tree", "qkv", "--workspace", w},
                                                                {"report", "--workspace", w}}) {
    const CliRun r = run_headway(args);
    ASSERT_TRUE(r.problem.empty()) << r.problem;
    EXPECT_EQ(r.exit_code, 3) << args[0] << ": " << r.err;
    EXPECT_EQ(r.out, "") << args[0];
    expect_one_error_line(r);
    EXPECT_NE(r.err.find("headway.db is unreadable"), std::string::npos) << r.err;
  }

  const CliRun bad_argument = run_headway({"status", "--workspace", w, "--frobnicate"});
  ASSERT_TRUE(bad_argument.problem.empty()) << bad_argument.problem;
  EXPECT_EQ(bad_argument.exit_code, 2) << bad_argument.err;
  expect_one_error_line(bad_argument);
  EXPECT_NE(bad_argument.err.find("--frobnicate"), std::string::npos) << bad_argument.err;
}

TEST(CliConventions, HelpAndVersionGoToStdoutWithExitZero) {
  const CliRun help = run_headway({"--help"});
  EXPECT_EQ(help.exit_code, 0) << help.err;
  EXPECT_NE(help.out.find("optimize"), std::string::npos) << help.out;
  EXPECT_EQ(help.err, "");
  const CliRun verb_help = run_headway({"tree", "--help"});
  EXPECT_EQ(verb_help.exit_code, 0) << verb_help.err;
  EXPECT_NE(verb_help.out.find("--format"), std::string::npos) << verb_help.out;

  const CliRun version = run_headway({"--version"});
  EXPECT_EQ(version.exit_code, 0) << version.err;
  EXPECT_EQ(version.err, "");
  const std::string commit = build_info().git_commit.empty()
                                 ? "commit unknown"
                                 : "commit " + std::string(build_info().git_commit.substr(0, 12));
  EXPECT_EQ(version.out, "headway " + std::string(build_info().version) + " (" + commit + ", " +
                             std::string(build_info().compiler) + ", workspace schema " +
                             std::to_string(store::latest_schema_version()) + ")\n");
  EXPECT_TRUE(std::regex_search(version.out, std::regex(R"(^headway \d+\.\d+\.\d+ \(commit )")))
      << version.out;
}

TEST(CliConventions, AppDefinesEveryVerbOnce) {
  int exit_code = 0;
  const auto app = make_app(&exit_code);
  std::vector<std::string> names;
  for (const CLI::App* sub :
       std::as_const(*app).get_subcommands([](const CLI::App*) { return true; })) {
    names.push_back(sub->get_name());
  }
  for (const char* verb : {"init", "check", "bench", "compare", "optimize", "status", "tree",
                           "calibrate", "docs", "check-citations", "facts", "rules", "migrate",
                           "onboard", "version", "report", "completion", "man"}) {
    EXPECT_EQ(std::count(names.begin(), names.end(), verb), 1) << verb;
  }
}

}  // namespace
}  // namespace headway::cli
