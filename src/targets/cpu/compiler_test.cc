// Building candidates in the sandbox: real compiler, real bwrap.
#include "targets/cpu/compiler.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>

#include "common/sandbox.h"
#include "kernels/contract.h"
#include "store/test_temp_dir.h"
#include "targets/cpu/host_abi.h"
#include "targets/cpu/sandboxed_toolchain_test_support.h"

namespace headway::cpu {
namespace {

namespace fs = std::filesystem;

// A fresh folder under `parent`, removed with everything in it at the end.
class DirUnder {
 public:
  explicit DirUnder(const fs::path& parent) {
    std::string pattern = (parent / "headway-compiler-test-XXXXXX").string();
    if (mkdtemp(pattern.data()) == nullptr) throw std::runtime_error("mkdtemp failed");
    path_ = pattern;
  }
  ~DirUnder() {
    std::error_code ec;
    fs::remove_all(path_, ec);
  }
  const fs::path& path() const { return path_; }

 private:
  fs::path path_;
};

// Entries of a build cache besides its precompiled headers (pch-* folders, which builds share).
int entries(const fs::path& dir) {
  int n = 0;
  for (const auto& e : fs::directory_iterator(dir))
    n += e.path().filename().string().starts_with("pch-") ? 0 : 1;
  return n;
}

using SandboxedCompiler = testing::SandboxedToolchain;

TEST_F(SandboxedCompiler, BuildsAndCachesAsBefore) {
  store::TestTempDir cache;
  const std::string source(host_abi(*builtin_kernel("attn_out")).baseline_source());
  const targets::BuildOutcome first = build_candidate(toolchain_, identity_, source, cache.path());
  ASSERT_EQ(first.status, targets::BuildOutcome::Status::kBuilt) << first.diagnostics;
  EXPECT_FALSE(first.cached);
  EXPECT_EQ(first.artifact.path.parent_path(), cache.path());
  EXPECT_GT(fs::file_size(first.artifact.path), 0u);
  const targets::BuildOutcome again = build_candidate(toolchain_, identity_, source, cache.path());
  ASSERT_EQ(again.status, targets::BuildOutcome::Status::kBuilt);
  EXPECT_TRUE(again.cached);
  EXPECT_EQ(again.artifact.path, first.artifact.path);
  EXPECT_EQ(entries(cache.path()), 1) << "the scratch folder is gone, only the object stays";
}

TEST_F(SandboxedCompiler, IncludesFromHomeOrTheWorkspaceDoNotBuild) {
  const char* home = std::getenv("HOME");
  ASSERT_TRUE(home && fs::is_directory(home));
  DirUnder in_home(home);
  DirUnder workspace(fs::current_path());
  for (const fs::path& dir : {in_home.path(), workspace.path()}) {
    std::ofstream(dir / "leak.h") << "#define LEAKED 42\n";
    const std::string source = "#include \"headway_kernel.h\"\n#include \"" +
                               (dir / "leak.h").string() +
                               "\"\nextern \"C\" int leaked() { return LEAKED; }\n";
    store::TestTempDir cache;
    const targets::BuildOutcome inside =
        build_candidate(toolchain_, identity_, source, cache.path());
    EXPECT_EQ(inside.status, targets::BuildOutcome::Status::kCompileError) << dir;
    EXPECT_NE(inside.diagnostics.find("leak.h"), std::string::npos) << inside.diagnostics;
    EXPECT_EQ(entries(cache.path()), 0) << "a failed build leaves nothing";
    // Without the sandbox the same source builds: the include path is right.
    sandbox::set_mode(sandbox::Mode::kDisabled);
    const targets::BuildOutcome outside =
        build_candidate(toolchain_, identity_, source, cache.path());
    sandbox::set_mode(sandbox::Mode::kRequired);
    EXPECT_EQ(outside.status, targets::BuildOutcome::Status::kBuilt) << outside.diagnostics;
  }
}

// A wrapper that builds for another target (here: one more predefined macro, as a -march wrapper
// would define other __AVX*__ macros) prints the same version under the same flags, so only the
// target macros keep its objects apart from the plain compiler's in one cache. Run outside the
// sandbox, which binds only the system folders and so would not find a wrapper in a test folder.
TEST_F(SandboxedCompiler, AWrapperThatBuildsForAnotherTargetGetsItsOwnObjects) {
  store::TestTempDir bin;
  const fs::path wrapper = bin.path() / "g++-wrapped";
  std::ofstream(wrapper) << "#!/bin/sh\nexec g++ -DHEADWAY_WRAPPED_TARGET=1 \"$@\"\n";
  fs::permissions(wrapper, fs::perms::owner_all);
  sandbox::set_mode(sandbox::Mode::kDisabled);
  Toolchain wrapped;
  wrapped.cxx = wrapper.string();
  const ToolchainIdentity wrapped_id = identify(wrapped);
  const ToolchainIdentity plain_id = identify(toolchain_);
  ASSERT_TRUE(wrapped_id.found) << wrapped_id.error;
  EXPECT_EQ(wrapped_id.id, plain_id.id) << "the premise: version and flags are the same";
  EXPECT_NE(wrapped_id.target_macros.find("HEADWAY_WRAPPED_TARGET"), std::string::npos);
  EXPECT_NE(plain_id.target_macros, wrapped_id.target_macros);

  store::TestTempDir cache;
  const std::string source =
      "#include \"headway_kernel.h\"\nextern \"C\" int wrapped() {\n"
      "#ifdef HEADWAY_WRAPPED_TARGET\n  return 1;\n#else\n  return 0;\n"
      "#endif\n}\n";
  const targets::BuildOutcome plain = build_candidate(toolchain_, plain_id, source, cache.path());
  const targets::BuildOutcome other = build_candidate(wrapped, wrapped_id, source, cache.path());
  const targets::BuildOutcome plain_again =
      build_candidate(toolchain_, plain_id, source, cache.path());
  sandbox::set_mode(sandbox::Mode::kRequired);
  ASSERT_EQ(plain.status, targets::BuildOutcome::Status::kBuilt) << plain.diagnostics;
  ASSERT_EQ(other.status, targets::BuildOutcome::Status::kBuilt) << other.diagnostics;
  EXPECT_FALSE(other.cached) << "the plain compiler's object is not the wrapper's";
  EXPECT_NE(other.artifact.path, plain.artifact.path);
  EXPECT_TRUE(plain_again.cached);
  EXPECT_EQ(plain_again.artifact.path, plain.artifact.path);
}

TEST_F(SandboxedCompiler, AMissingCompilerIsAToolchainError) {
  Toolchain missing;
  missing.cxx = "/nonexistent/g++";
  const ToolchainIdentity id = identify(missing);
  EXPECT_FALSE(id.found);
  EXPECT_NE(id.error.find("compiler not found"), std::string::npos) << id.error;
  ToolchainIdentity pretend = identity_;  // as if it had been found earlier
  store::TestTempDir cache;
  const targets::BuildOutcome built = build_candidate(missing, pretend, "int x;\n", cache.path());
  EXPECT_EQ(built.status, targets::BuildOutcome::Status::kToolchainMissing) << built.diagnostics;
  EXPECT_NE(built.diagnostics.find("/nonexistent/g++"), std::string::npos) << built.diagnostics;
}

}  // namespace
}  // namespace headway::cpu
