// `cmake --install` into an empty prefix: the binary and its runner, the man page and the bash
// completion land where Debian puts them, and the installed headway works away from the source
// and build trees (the files it needs are embedded in it).
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "cli/cli_test_support.h"
#include "knowledge/facts.h"
#include "store/workspace.h"

namespace headway::cli {
namespace {

namespace fs = std::filesystem;

TEST(Install, PutsBinaryManPageAndCompletionInThePrefixAndRunsFromThere) {
  store::TestTempDir dir;
  const fs::path prefix = dir.path() / "prefix";
  const CliRun install =
      run_split(HEADWAY_CMAKE_COMMAND,
                {"--install", HEADWAY_BUILD_DIR, "--prefix", prefix.string()}, "", 300.0);
  ASSERT_TRUE(install.problem.empty()) << install.problem;
  ASSERT_EQ(install.exit_code, 0) << install.out << install.err;
  const fs::path bin = prefix / "bin/headway";
  EXPECT_TRUE(fs::is_regular_file(bin));
  EXPECT_TRUE(fs::is_regular_file(prefix / "bin/headway-runner"));
#ifdef HEADWAY_FAKE_LIBCUDA
  // The cuda runner and, beside it, the stand-in driver the emulated toolchain loads.
  EXPECT_TRUE(fs::is_regular_file(prefix / "bin/headway-cuda-runner"));
  EXPECT_TRUE(fs::is_regular_file(prefix / "bin/libheadway_fake_libcuda.so"));
#endif
  EXPECT_EQ(file_text(prefix / "share/man/man1/headway.1"), file_text(HEADWAY_MAN_PAGE));
  EXPECT_EQ(file_text(prefix / "share/bash-completion/completions/headway"),
            file_text(HEADWAY_BASH_COMPLETION));

  const CliRun version = run_split(bin.string(), {"--version"}, dir.path().string());
  EXPECT_EQ(version.exit_code, 0) << version.err;
  EXPECT_EQ(version.out.rfind("headway ", 0), 0u) << version.out;

  // Onboarding writes the cpu target's built-in docs and checks its built-in summary: both come
  // from inside the installed binary.
  const fs::path ws = dir.path() / "ws";
  ASSERT_EQ(run_split(bin.string(), {"init", ws.string()}, dir.path().string()).exit_code, 0);
  {
    auto w = store::Workspace::open(ws).value();
    knowledge::store_fact(w, {knowledge::kReadBandwidth, knowledge::current_toolchain_id(w), 9.5,
                              "GB/s", 1.0, "test", ""});
  }
  const CliRun onboard =
      run_split(bin.string(), {"onboard", "--keep-facts", "--json"}, ws.string());
  ASSERT_EQ(onboard.exit_code, 0) << onboard.err;
  const auto j = nlohmann::json::parse(onboard.out);
  EXPECT_TRUE(j["docs"]["builtin"].get<bool>());
  EXPECT_GT(j["docs"]["files"].get<int>(), 0);
  EXPECT_GT(j["summary"]["citations"].get<int>(), 0);

  // The whole loop runs from the installed binary (the sim target: seconds, no compiler).
  const fs::path sim = dir.path() / "sim";
  ASSERT_EQ(run_split(bin.string(), {"init", sim.string()}).exit_code, 0);
  const CliRun optimize = run_split(
      bin.string(), {"optimize", "--target", "sim", "--kernels", "qkv", "--budget", "5m", "--json"},
      sim.string(), 300.0);
  ASSERT_EQ(optimize.exit_code, 0) << optimize.err;
  EXPECT_GT(nlohmann::json::parse(optimize.out)["proposed"].get<int>(), 0);
}

}  // namespace
}  // namespace headway::cli
