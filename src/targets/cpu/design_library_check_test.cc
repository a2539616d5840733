// Every embedded design, rendered at its declared defaults, builds with the host compiler and
// passes the cpu correctness check (real builds and real checks: a design whose defaults are
// broken fails here). The other listed values are checked by the loop in
// kernels/designs/README.md, which takes minutes. A design whose `requires:` names an extension
// this chip or compiler lacks (the isa facts) is built twice, natively (its fallback) and with the
// extensions' -m flags (its own code path), and then skipped, not checked: the loop never proposes
// it here.
#include <gtest/gtest.h>
#include <unistd.h>

#include <exception>
#include <filesystem>
#include <map>
#include <set>
#include <string>
#include <vector>

#include "kernels/contract.h"
#include "targets/cpu/cpu_target.h"
#include "targets/cpu/isa_facts.h"
#include "targets/design_library.h"
#include "targets/fact_names.h"
#include "targets/registry/registry.h"

namespace headway::targets {
namespace {

namespace fs = std::filesystem;

// The cpu target (g++), whose designs these are.
targets::Target& cpu() {
  static const std::unique_ptr<targets::Target> target = targets::make_target("cpu");
  return *target;
}

// "kernel/design" for every embedded design. A design that does not parse is reported by
// EveryKernelHasDesigns and design_library_test.cc, not by failing test registration.
std::vector<std::string> all_designs() {
  std::vector<std::string> out;
  try {
    for (const char* k : {"qkv", "attn_out", "ffn"}) {
      for (const auto& d : designs_for(cpu(), *builtin_kernel(k)))
        out.push_back(std::string(k) + "/" + d.name);
    }
  } catch (const std::exception&) {
    out.clear();
  }
  return out;
}

class DesignDefaults : public ::testing::TestWithParam<std::string> {
 protected:
  static void SetUpTestSuite() {
    cache_ = new fs::path(fs::temp_directory_path() /
                          ("headway-design-check-" + std::to_string(getpid())));
  }
  static void TearDownTestSuite() {
    fs::remove_all(*cache_);
    delete cache_;
  }
  static fs::path* cache_;
};
fs::path* DesignDefaults::cache_ = nullptr;

// The designs whose shift decoders make f32 subnormals (the code's value times 2^-120 or 2^-126)
// say so; those that decode through f16, bf16 or a table of normal values do not.
TEST(DesignDefaultsList, DesignsThatMakeSubnormalsDeclareThem) {
  const std::map<std::string, std::set<std::string>> making = {
      {"qkv", {"sext_static", "shift_pool"}},
      {"attn_out", {"sext_static", "shift_pool"}},
      {"ffn", {"shift_blocks"}}};
  for (const auto& [kernel, names] : making) {
    for (const auto& d : designs_for(cpu(), *builtin_kernel(kernel))) {
      EXPECT_EQ(!d.subnormals.empty(), names.count(d.name) > 0) << kernel << " " << d.name;
    }
  }
}

TEST(DesignDefaultsList, EveryKernelHasDesigns) {
  for (const char* k : {"qkv", "attn_out", "ffn"})
    EXPECT_FALSE(designs_for(cpu(), *builtin_kernel(k)).empty()) << k;
}

TEST_P(DesignDefaults, BuildsAndPassesTheCheck) {
  ASSERT_TRUE(cpu().identity().found) << cpu().identity().error;
  const std::string& id = GetParam();
  const std::string kernel = id.substr(0, id.find('/'));
  const std::string name = id.substr(id.find('/') + 1);
  const Design* design = nullptr;
  for (const auto& d : designs_for(cpu(), *builtin_kernel(kernel))) {
    if (d.name == name) design = &d;
  }
  ASSERT_NE(design, nullptr) << id;
  const targets::BuildOutcome built = cpu().build(design->render(design->defaults()), *cache_);
  ASSERT_TRUE(built.built()) << id << ":\n" << built.diagnostics;
  const auto* host = dynamic_cast<const cpu::CpuTarget*>(&cpu());
  ASSERT_NE(host, nullptr);
  static const std::vector<targets::ChipFact> isa = cpu::measure_isa_facts(host->cpu_toolchain());
  std::string missing;
  for (const auto& ext : design->requires_isa) {
    bool has = false;
    for (const auto& f : isa)
      has = has || (f.name == targets::isa_fact_name(ext) && f.value != 0.0);
    if (!has) missing += " " + ext;
  }
  if (!missing.empty()) {
    cpu::Toolchain forced = host->cpu_toolchain();
    for (const auto& ext : design->requires_isa) forced.flags.push_back("-m" + ext);
    const cpu::ToolchainIdentity forced_id = cpu::identify(forced);
    const targets::BuildOutcome wide =
        cpu::build_candidate(forced, forced_id, design->render(design->defaults()), *cache_);
    ASSERT_EQ(wide.status, targets::BuildOutcome::Status::kBuilt) << id << " with -m flags:\n"
                                                                  << wide.diagnostics;
    GTEST_SKIP()
        << id << " built (natively and with its -m flags) but not run: this chip or compiler lacks"
        << missing;
  }
  targets::CheckOptions options;
  options.seed = 20261129;
  const targets::CheckOutcome report =
      cpu().check(*builtin_kernel(kernel), built.artifact, options);
  EXPECT_TRUE(report.correct()) << id << ": " << report.description;
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
}  // namespace headway::targets
