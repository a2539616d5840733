// Building candidates in the sandbox: real compiler, real bwrap.
#include "targets/cpu/compiler.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>

#include "common/sandbox.h"
#include "kernels/contract.h"
#include "targets/cpu/host_abi.h"
#include "store/test_temp_dir.h"

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

int entries(const fs::path& dir) {
  int n = 0;
  for ([[maybe_unused]] const auto& e : fs::directory_iterator(dir)) ++n;
  return n;
}

class SandboxedCompiler : public ::testing::Test {
 protected:
  void SetUp() override {
    sandbox::set_mode(sandbox::Mode::kRequired);
    ASSERT_EQ(sandbox::unavailable_reason(), "");
    identity_ = identify(toolchain_);
    ASSERT_TRUE(identity_.found) << identity_.error;
  }
  void TearDown() override { sandbox::set_mode(sandbox::Mode::kRequired); }
  Toolchain toolchain_;
  ToolchainIdentity identity_;
};

TEST_F(SandboxedCompiler, BuildsAndCachesAsBefore) {
  store::TestTempDir cache;
  const std::string source(host_abi(*find_kernel("attn_out")).baseline_source());
  const BuildResult first = build_candidate(toolchain_, identity_, source, cache.path());
  ASSERT_EQ(first.status, BuildResult::Status::kBuilt) << first.diagnostics;
  EXPECT_FALSE(first.cached);
  EXPECT_EQ(first.shared_object.parent_path(), cache.path());
  EXPECT_GT(fs::file_size(first.shared_object), 0u);
  const BuildResult again = build_candidate(toolchain_, identity_, source, cache.path());
  ASSERT_EQ(again.status, BuildResult::Status::kBuilt);
  EXPECT_TRUE(again.cached);
  EXPECT_EQ(again.shared_object, first.shared_object);
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
    const BuildResult inside = build_candidate(toolchain_, identity_, source, cache.path());
    EXPECT_EQ(inside.status, BuildResult::Status::kCompileError) << dir;
    EXPECT_NE(inside.diagnostics.find("leak.h"), std::string::npos) << inside.diagnostics;
    EXPECT_EQ(entries(cache.path()), 0) << "a failed build leaves nothing";
    // Without the sandbox the same source builds: the include path is right.
    sandbox::set_mode(sandbox::Mode::kDisabled);
    const BuildResult outside = build_candidate(toolchain_, identity_, source, cache.path());
    sandbox::set_mode(sandbox::Mode::kRequired);
    EXPECT_EQ(outside.status, BuildResult::Status::kBuilt) << outside.diagnostics;
  }
}

TEST_F(SandboxedCompiler, AMissingCompilerIsAToolchainError) {
  Toolchain missing;
  missing.cxx = "/nonexistent/g++";
  const ToolchainIdentity id = identify(missing);
  EXPECT_FALSE(id.found);
  EXPECT_NE(id.error.find("compiler not found"), std::string::npos) << id.error;
  ToolchainIdentity pretend = identity_;  // as if it had been found earlier
  store::TestTempDir cache;
  const BuildResult built = build_candidate(missing, pretend, "int x;\n", cache.path());
  EXPECT_EQ(built.status, BuildResult::Status::kToolchainMissing) << built.diagnostics;
  EXPECT_NE(built.diagnostics.find("/nonexistent/g++"), std::string::npos) << built.diagnostics;
}

}  // namespace
}  // namespace headway::cpu
