// Every embedded design, rendered at its declared defaults, builds with the host compiler and
// passes the cpu correctness check (real builds and real checks: a design whose defaults are
// broken fails here). The other listed values are checked by the loop in
// kernels/designs/README.md, which takes minutes.
#include <gtest/gtest.h>
#include <unistd.h>

#include <exception>
#include <filesystem>
#include <string>
#include <vector>

#include "kernels/contract.h"
#include "loop/design_library.h"
#include "targets/cpu/compiler.h"
#include "targets/cpu/cpu_check.h"

namespace headway::loop {
namespace {

namespace fs = std::filesystem;

// "kernel/design" for every embedded design. A design that does not parse is reported by
// EveryKernelHasDesigns and design_library_test.cc, not by failing test registration.
std::vector<std::string> all_designs() {
  std::vector<std::string> out;
  try {
    for (const char* k : {"qkv", "attn_out", "ffn"}) {
      for (const auto& d : designs_for(k)) out.push_back(std::string(k) + "/" + d.name);
    }
  } catch (const std::exception&) {
    out.clear();
  }
  return out;
}

class DesignDefaults : public ::testing::TestWithParam<std::string> {
 protected:
  static void SetUpTestSuite() {
    cache_ = new fs::path(fs::temp_directory_path() / ("headway-design-check-" + std::to_string(getpid())));
    identity_ = new cpu::ToolchainIdentity(cpu::identify(cpu::Toolchain{}));
  }
  static void TearDownTestSuite() {
    fs::remove_all(*cache_);
    delete cache_;
    delete identity_;
  }
  static fs::path* cache_;
  static cpu::ToolchainIdentity* identity_;
};
fs::path* DesignDefaults::cache_ = nullptr;
cpu::ToolchainIdentity* DesignDefaults::identity_ = nullptr;

TEST(DesignDefaultsList, EveryKernelHasDesigns) {
  for (const char* k : {"qkv", "attn_out", "ffn"}) EXPECT_FALSE(designs_for(k).empty()) << k;
}

TEST_P(DesignDefaults, BuildsAndPassesTheCheck) {
  ASSERT_TRUE(identity_->found) << identity_->error;
  const std::string& id = GetParam();
  const std::string kernel = id.substr(0, id.find('/'));
  const std::string name = id.substr(id.find('/') + 1);
  const Design* design = nullptr;
  for (const auto& d : designs_for(kernel)) {
    if (d.name == name) design = &d;
  }
  ASSERT_NE(design, nullptr) << id;
  const cpu::BuildResult built = cpu::build_candidate(cpu::Toolchain{}, *identity_, design->render(design->defaults()), *cache_);
  ASSERT_EQ(built.status, cpu::BuildResult::Status::kBuilt) << id << ":\n" << built.diagnostics;
  cpu::CheckOptions options;
  options.seed = 20261129;
  const cpu::CheckReport report = cpu::check_candidate(*find_kernel(kernel), built.shared_object, options);
  EXPECT_TRUE(report.correct()) << id << ": " << report.describe();
}

INSTANTIATE_TEST_SUITE_P(Embedded, DesignDefaults, ::testing::ValuesIn(all_designs()),
                         [](const ::testing::TestParamInfo<std::string>& p) {
                           std::string s = p.param;
                           for (char& c : s) {
                             if (c == '/') c = '_';
                           }
                           return s;
                         });

}  // namespace
}  // namespace headway::loop
