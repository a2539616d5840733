// The shared build step with real processes in the real sandbox: sh stands in for a toolchain.
#include "targets/sandboxed_build.h"

#include <gtest/gtest.h>

#include <fstream>
#include <sstream>

#include "store/test_temp_dir.h"

namespace headway::targets {
namespace {

namespace fs = std::filesystem;

std::string read(const fs::path& p) {
  std::ifstream in(p);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

// A "toolchain" that runs `script` in the scratch folder, which holds in.txt.
SandboxedBuild shell_build(const std::string& script, const std::string& input = "hello\n") {
  SandboxedBuild b;
  b.key = "sh\n" + script + '\n' + input;
  b.extension = ".out";
  b.inputs = {{"in.txt", input}, {"sub/header.h", "// a header\n"}};
  b.output = "out.txt";
  b.argv = [script](const fs::path&) { return std::vector<std::string>{"sh", "-c", script}; };
  b.tool = "the shell";
  b.timeout_seconds = 20.0;
  return b;
}

// Nothing but cached outputs is left in the cache folder: no scratch folder survives a build.
std::vector<std::string> entries(const fs::path& dir) {
  std::vector<std::string> out;
  for (const auto& e : fs::directory_iterator(dir)) out.push_back(e.path().filename().string());
  return out;
}

TEST(SandboxedBuild, BuildsOnceThenServesTheCachedFile) {
  store::TestTempDir dir;
  const auto first =
      run_sandboxed_build(shell_build("cat in.txt sub/header.h > out.txt"), dir.path());
  ASSERT_TRUE(first.built()) << first.diagnostics;
  EXPECT_FALSE(first.cached);
  EXPECT_EQ(first.artifact.path, dir.path() / (first.artifact.id + ".out"));
  EXPECT_EQ(read(first.artifact.path), "hello\n// a header\n");
  EXPECT_EQ(entries(dir.path()), std::vector<std::string>{first.artifact.id + ".out"});

  const auto again =
      run_sandboxed_build(shell_build("cat in.txt sub/header.h > out.txt"), dir.path());
  ASSERT_TRUE(again.built());
  EXPECT_TRUE(again.cached);
  EXPECT_EQ(again.artifact.id, first.artifact.id);
  const auto other = run_sandboxed_build(shell_build("cat in.txt > out.txt", "bye\n"), dir.path());
  EXPECT_NE(other.artifact.id, first.artifact.id) << "another key is another build";
  EXPECT_EQ(read(other.artifact.path), "bye\n");
}

TEST(SandboxedBuild, AFailingToolIsACompileErrorThatLeavesNothing) {
  store::TestTempDir dir;
  const auto r =
      run_sandboxed_build(shell_build("echo 'in.txt:1: error: no' >&2; exit 1"), dir.path());
  EXPECT_EQ(r.status, BuildOutcome::Status::kCompileError);
  EXPECT_NE(r.diagnostics.find("in.txt:1: error: no"), std::string::npos) << r.diagnostics;
  EXPECT_TRUE(entries(dir.path()).empty());
}

TEST(SandboxedBuild, TheToolCannotWriteOutsideItsScratchFolder) {
  store::TestTempDir dir;
  const fs::path outside = dir.path() / "outside.txt";
  const auto r = run_sandboxed_build(
      shell_build("echo x > " + outside.string() + " ; cp in.txt out.txt"), dir.path());
  ASSERT_TRUE(r.built()) << r.diagnostics;
  EXPECT_FALSE(fs::exists(outside));
}

TEST(SandboxedBuild, AToolThatRunsTooLongIsStopped) {
  store::TestTempDir dir;
  SandboxedBuild b = shell_build("sleep 30");
  b.timeout_seconds = 0.5;
  const auto r = run_sandboxed_build(b, dir.path());
  EXPECT_EQ(r.status, BuildOutcome::Status::kCompileError);
  EXPECT_NE(r.diagnostics.find("the shell ran past 0.5 s"), std::string::npos) << r.diagnostics;
  EXPECT_TRUE(entries(dir.path()).empty());
}

TEST(SandboxedBuild, AMissingToolIsAMissingToolchain) {
  store::TestTempDir dir;
  SandboxedBuild b = shell_build("");
  b.argv = [](const fs::path&) { return std::vector<std::string>{"/no/such/compiler"}; };
  const auto r = run_sandboxed_build(b, dir.path());
  EXPECT_EQ(r.status, BuildOutcome::Status::kToolchainMissing);
  EXPECT_NE(r.diagnostics.find("the shell not found in the sandbox"), std::string::npos)
      << r.diagnostics;
}

TEST(SandboxedBuild, TheScratchFolderIsNamedInTheEnvironmentWhereAsked) {
  store::TestTempDir dir;
  SandboxedBuild b = shell_build("echo \"$TMPDIR\" > out.txt; test \"$TMPDIR\" = \"$PWD\"");
  b.environment = {{"TMPDIR", "{scratch}"}};
  const auto r = run_sandboxed_build(b, dir.path());
  ASSERT_TRUE(r.built()) << r.diagnostics;
  EXPECT_EQ(read(r.artifact.path).rfind((fs::absolute(dir.path()) / "tmp-").string(), 0), 0u)
      << read(r.artifact.path);
}

}  // namespace
}  // namespace headway::targets
