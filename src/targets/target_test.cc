// What a new target must write (the required groups of targets::Target) and what the optional
// groups do when it writes nothing more.
#include "targets/target.h"

#include <gtest/gtest.h>

#include <string>

namespace headway::targets {
namespace {

// A target that overrides name() and the required groups' pure methods, nothing else: that
// this class is not abstract is the test that those are all a target needs.
class MinimalTarget final : public Target {
 public:
  std::string name() const override { return "minimal"; }
  std::string toolchain() const override { return ""; }
  ToolchainInfo select_toolchain(const std::string&) override { return info_; }
  const ToolchainInfo& identity() const override { return info_; }
  BuildOutcome build(const std::string&, const std::filesystem::path&) override { return {}; }
  std::string baseline_source(const KernelContract&) const override { return ""; }
  CheckOutcome check(const KernelContract&, const Artifact&, const CheckOptions&) override {
    return {};
  }
  Result<std::unique_ptr<Session>> start_session(const KernelContract&,
                                                 const std::vector<Artifact>&, uint64_t) override {
    return Error{ErrorCode::kEnvironment, "no device"};
  }
  std::vector<Timing> time_side_by_side(const KernelContract&, const std::vector<Artifact>&, int,
                                        uint64_t) override {
    return {};
  }
  Result<std::unique_ptr<statistics::PairedDevice>> paired_device(const KernelContract&,
                                                                  const Artifact&, const Artifact&,
                                                                  uint64_t) override {
    return Error{ErrorCode::kEnvironment, "no device"};
  }
  std::vector<ChipFact> measure_facts(const FactOptions&) override { return {}; }
  std::vector<std::string> floor_facts() const override { return {}; }
  KernelFloors floors(const KernelContract&, const std::map<std::string, double>&) const override {
    return {};
  }
  TargetDocs docs() const override { return {}; }

 private:
  ToolchainInfo info_;
};

TEST(Target, EveryOptionalGroupHasADefaultThatSaysTheTargetLacksIt) {
  MinimalTarget t;
  EXPECT_FALSE(t.times_on_host()) << "a device elsewhere";
  EXPECT_EQ(t.time_on_one_core(true), "the minimal target does not time on this machine's cores");
  EXPECT_EQ(t.pool_refusal(), "the minimal target runs its device work on this machine");
  EXPECT_EQ(t.device_model(), "") << "a model unknown";
  try {
    t.calibration_devices({});
    ADD_FAILURE() << "a target without calibration served a calibration";
  } catch (const std::runtime_error& e) {
    EXPECT_EQ(std::string(e.what()), "the minimal target cannot run calibration decisions");
  }
  EXPECT_FALSE(t.known_s0({}));
  const Artifact artifact{"id", "/nowhere", {}};
  EXPECT_FALSE(t.static_cost(artifact));
  EXPECT_FALSE(t.true_seconds(*builtin_kernel("qkv"), artifact));
  EXPECT_EQ(t.microbenchmark_language(), "");
  const MicrobenchmarkOutcome bench = t.run_microbenchmark("int main() {}", "/tmp", 1.0);
  EXPECT_EQ(bench.status, MicrobenchmarkOutcome::Status::kUnsupported);
  EXPECT_EQ(bench.failure, "the minimal target cannot run microbenchmarks");
  EXPECT_TRUE(t.design_files(*builtin_kernel("qkv")).empty());
  EXPECT_TRUE(t.candidate_headers().empty());
}

TEST(Target, TheDefaultDiagnosticIsTheFirstErrorLineAbstracted) {
  MinimalTarget t;
  const Diagnostic d = t.normalize_diagnostic(
      "building...\nkernels/qkv.cc:12:7: error: 'tile' was not declared in this scope\n"
      "kernels/qkv.cc:14:1: error: expected ';'\n");
  EXPECT_EQ(d.line, "error: 'tile' was not declared in this scope")
      << "the first error, not the second";
  EXPECT_NE(d.signature.find("was not declared in this scope"), std::string::npos) << d.signature;
  EXPECT_EQ(d.signature.find("qkv.cc"), std::string::npos)
      << "paths are abstracted: " << d.signature;
  EXPECT_EQ(t.normalize_diagnostic("all good\n").signature, "");
}

TEST(Target, AKernelsSourceGoesHomeAsOneFileNamedForIt) {
  MinimalTarget t;
  const auto files = t.source_files(*builtin_kernel("ffn"), "int x;");
  ASSERT_TRUE(files.ok());
  EXPECT_TRUE(files.value().repository.empty());
  ASSERT_EQ(files.value().files.size(), 1u);
  EXPECT_EQ(files.value().files[0].first, "ffn.cc") << "the default language's extension";
  EXPECT_EQ(files.value().files[0].second, "int x;");
}

// Every fact is wanted when none is named; else exactly the named ones, or with `prefix` any
// whose name a named one starts with.
TEST(Target, FactOptionsWantWhatTheyName) {
  FactOptions all;
  EXPECT_TRUE(all.wants("read_bandwidth"));
  EXPECT_TRUE(all.wants("isa.", true));
  FactOptions some;
  some.only = {"read_bandwidth", "isa.avx512bf16"};
  EXPECT_TRUE(some.wants("read_bandwidth"));
  EXPECT_TRUE(some.wants("isa.avx512bf16"));
  EXPECT_FALSE(some.wants("read_bandwidth.threads_1"));
  EXPECT_FALSE(some.wants("isa."));
  EXPECT_TRUE(some.wants("isa.", true));
  EXPECT_FALSE(some.wants("decode_ceiling", true));
  EXPECT_FALSE(some.wants("isa.avx512bf16.x", true)) << "the named fact must start with it";
}

}  // namespace
}  // namespace headway::targets
