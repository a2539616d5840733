// A verb's exit status follows the kind of its failure (docs/CLI.md, "Exit statuses"), wherever
// it happens: a workspace database that fails in the middle of `optimize` exits 3, as in any
// verb, and a file a verb cannot write exits 3 in `report` as in `docs diff --update`.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>

#include "cli/cli_test_support.h"
#include "store/test_temp_dir.h"
#include "store/workspace.h"

namespace headway::cli {
namespace {

namespace fs = std::filesystem;

void expect_one_line(const CliRun& r) {
  EXPECT_EQ(r.err.rfind("headway: ", 0), 0u) << r.err;
  EXPECT_EQ(r.err.find('\n'), r.err.size() - 1) << r.err;
}

TEST(VerbExitStatus, ADatabaseErrorInTheMiddleOfOptimizeExitsThree) {
  store::TestTempDir dir;
  const std::string w = (dir.path() / "ws").string();
  ASSERT_EQ(run_headway({"init", w}).exit_code, 0);
  {
    // The kernel registers (its baseline is the first node); storing its first proposal fails.
    auto ws = store::Workspace::open(w);
    ASSERT_TRUE(ws) << ws.error().message;
    ws->db().exec(
        "CREATE TRIGGER injected_failure BEFORE INSERT ON nodes "
        "WHEN (SELECT count(*) FROM nodes) > 0 "
        "BEGIN SELECT RAISE(ABORT, 'injected failure'); END");
  }
  const CliRun r = run_headway(
      {"optimize", "--target", "sim", "--kernels", "qkv", "--budget", "5m", "--workspace", w}, "",
      300.0);
  ASSERT_TRUE(r.problem.empty()) << r.problem;
  EXPECT_EQ(r.exit_code, 3) << r.err;
  EXPECT_NE(r.err.find("injected failure"), std::string::npos) << r.err;
}

TEST(VerbExitStatus, AReportThatCannotBeWrittenExitsThree) {
  store::TestTempDir dir;
  const std::string w = (dir.path() / "ws").string();
  ASSERT_EQ(run_headway({"init", w, "--target", "sim"}).exit_code, 0);
  const fs::path not_a_folder = dir.path() / "file";
  std::ofstream(not_a_folder) << "x";
  const CliRun r = run_headway(
      {"report", "--workspace", w, "--format", "md", "--out", (not_a_folder / "report").string()});
  ASSERT_TRUE(r.problem.empty()) << r.problem;
  EXPECT_EQ(r.exit_code, 3) << r.err;
  expect_one_line(r);
}

}  // namespace
}  // namespace headway::cli
