#include "targets/cpu/cpu_check.h"

#include <gtest/gtest.h>

#include <cmath>
#include <filesystem>
#include <string>

#include "targets/cpu/compiler.h"
#include "targets/cpu/host_abi.h"

namespace headway::cpu {
namespace {

namespace fs = std::filesystem;
using Outcome = targets::CheckOutcome;
using Status = targets::CheckOutcome::Status;

// The violation's kind, region and counts as the outcome's details carry them.
std::string violation_kind(const Outcome& r) { return r.details["violation"].value("kind", ""); }
std::string violation_region(const Outcome& r) {
  return r.details["violation"].value("region", "");
}
std::string run_status_of(const Outcome& r) { return r.details["run"].value("status", ""); }

// Builds sources into one cache for the whole suite: an identical source builds once.
class PlantedKernels : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    cache_ = new fs::path(fs::temp_directory_path() /
                          ("headway-check-test-" + std::to_string(getpid())));
    identity_ = new ToolchainIdentity(identify(Toolchain{}));
  }
  static void TearDownTestSuite() {
    fs::remove_all(*cache_);
    delete cache_;
    delete identity_;
  }

  // The baseline of `kernel` with `from` replaced by `to` (which must occur exactly once).
  static std::string mutate(const std::string& kernel, const std::string& from,
                            const std::string& to) {
    std::string s(host_abi(*builtin_kernel(kernel)).baseline_source());
    const size_t at = s.find(from);
    EXPECT_NE(at, std::string::npos) << "mutation site not found: " << from;
    EXPECT_EQ(s.find(from, at + 1), std::string::npos) << "mutation site not unique: " << from;
    if (at != std::string::npos) s.replace(at, from.size(), to);
    return s;
  }

  static Outcome check(const std::string& kernel, const std::string& source, double timeout = 10.0,
                       uint64_t memory = 2ull << 30) {
    const targets::BuildOutcome built = build_candidate(Toolchain{}, *identity_, source, *cache_);
    EXPECT_EQ(built.status, targets::BuildOutcome::Status::kBuilt) << built.diagnostics;
    targets::CheckOptions options;
    options.seed = 20261129;
    options.call_timeout_seconds = timeout;
    return check_candidate(*builtin_kernel(kernel), built.artifact.path, options,
                           ProcessLimits{.memory_limit_bytes = memory});
  }

  static fs::path* cache_;
  static ToolchainIdentity* identity_;
};
fs::path* PlantedKernels::cache_ = nullptr;
ToolchainIdentity* PlantedKernels::identity_ = nullptr;

TEST_F(PlantedKernels, BaselinesPass) {
  for (const char* k : {"qkv", "attn_out", "ffn"}) {
    const Outcome r = check(k, std::string(host_abi(*builtin_kernel(k)).baseline_source()));
    EXPECT_EQ(r.status, Status::kCorrect) << k << ": " << r.description;
    const auto& margin = r.details["error_share"];
    EXPECT_LT(margin["share"].get<double>(), 0.9) << k << ": " << margin.dump();
    EXPECT_TRUE(margin["call"] == 1 || margin["call"] == 2) << margin.dump();
  }
}

// A correct check gives its margin: a kernel whose outputs are all off by 0.02 (within attn_out's
// atol of 0.05) comes at least 0.02 / (0.05 + 0.01 |expected|) of the way to failing.
TEST_F(PlantedKernels, ACorrectCheckGivesTheElementClosestToItsTolerance) {
  const auto r = check("attn_out", mutate("attn_out", "hw::bf16_to_f32(a->residual[r]) + normed)",
                                          "hw::bf16_to_f32(a->residual[r]) + normed + 0.02f)"));
  ASSERT_EQ(r.status, Status::kCorrect) << r.description;
  const auto& margin = r.details["error_share"];
  EXPECT_EQ(margin["region"], "residual");
  const double expected = margin["expected"].get<double>();
  const double tolerance = margin["tolerance"].get<double>();
  EXPECT_DOUBLE_EQ(tolerance, 0.05 + 0.01 * std::fabs(expected));
  EXPECT_DOUBLE_EQ(margin["share"].get<double>(),
                   std::fabs(margin["got"].get<double>() - expected) / tolerance);
  EXPECT_GT(margin["share"].get<double>(), 0.02 / (0.05 + 0.01 * 4));
}

TEST_F(PlantedKernels, ZerosFail) {
  const auto r =
      check("attn_out",
            mutate("attn_out", "hw::f32_to_bf16(hw::bf16_to_f32(a->residual[r]) + normed)", "0"));
  ASSERT_EQ(r.status, Status::kIncorrect) << r.description;
  EXPECT_EQ(violation_kind(r), "wrong-value");
  EXPECT_EQ(r.details["violation"]["got"], 0.0);
  EXPECT_GT(r.details["violation"]["failing"].get<size_t>(), 3000u);
  EXPECT_EQ(r.details["failed_call"], 1);
}

TEST_F(PlantedKernels, NanFails) {
  const auto r = check("qkv", mutate("qkv", "out[h * HW_DS + d] = hw::f32_to_bf16(v);",
                                     "out[h * HW_DS + d] = 0x7fc0;"));
  ASSERT_EQ(r.status, Status::kIncorrect) << r.description;
  EXPECT_EQ(violation_kind(r), "non-finite");
}

TEST_F(PlantedKernels, ReturningTheInputFails) {
  // ffn that leaves residual as it came in.
  const auto r = check(
      "ffn",
      mutate("ffn", "a->residual[r] = hw::f32_to_bf16((residual[r] + normed) * layer_scalar);",
             "(void)normed; (void)layer_scalar;"));
  ASSERT_EQ(r.status, Status::kIncorrect) << r.description;
  EXPECT_EQ(violation_kind(r), "wrong-value");
  EXPECT_EQ(violation_region(r), "residual");
}

TEST_F(PlantedKernels, OneRowOffFails) {
  const auto r =
      check("attn_out", mutate("attn_out", "a->o_weight + static_cast<size_t>(r) * HW_QS",
                               "a->o_weight + static_cast<size_t>((r + 1) % HW_H) * HW_QS"));
  ASSERT_EQ(r.status, Status::kIncorrect) << r.description;
  EXPECT_EQ(violation_kind(r), "wrong-value");
  EXPECT_GT(r.details["violation"]["failing"].get<size_t>(), 1000u);
}

TEST_F(PlantedKernels, DroppedScaleFails) {
  const auto row = check("qkv", mutate("qkv", "acc * hw::bf16_to_f32(scale[r])", "acc"));
  ASSERT_EQ(row.status, Status::kIncorrect) << row.description;
  EXPECT_EQ(violation_kind(row), "wrong-value");
  const auto block =
      check("ffn", mutate("ffn", "total += block * kF8.v[block_scales[b]];", "total += block;"));
  ASSERT_EQ(block.status, Status::kIncorrect) << block.description;
  EXPECT_EQ(violation_kind(block), "wrong-value");
}

TEST_F(PlantedKernels, MissingRopeFails) {
  const auto r = check("qkv", mutate("qkv", "a->q_rms_weight, a->cos, a->sin, a->q_out",
                                     "a->q_rms_weight, nullptr, nullptr, a->q_out"));
  ASSERT_EQ(r.status, Status::kIncorrect) << r.description;
  EXPECT_EQ(violation_region(r), "q_out");
}

TEST_F(PlantedKernels, WriteToAnotherCacheSlotFails) {
  const auto r = check("qkv", mutate("qkv", "nullptr, nullptr, nullptr, a->v_cache + slot);",
                                     "nullptr, nullptr, nullptr, a->v_cache + (slot + HW_NS * "
                                     "HW_DS) % (HW_TS * HW_NS * HW_DS));"));
  ASSERT_EQ(r.status, Status::kIncorrect) << r.description;
  EXPECT_EQ(r.kind, "forbidden-write");
  EXPECT_EQ(violation_kind(r), "wrote-outside-rows");
  EXPECT_EQ(violation_region(r), "v_cache");
}

TEST_F(PlantedKernels, CacheKeptAcrossCallsFails) {
  // Remembers its first result and returns it on every later call.
  const auto r = check(
      "attn_out",
      mutate("attn_out", "extern \"C\" void hw_attn_out(const hw_attn_out_args* a) {",
             "static void real(const hw_attn_out_args* a);\n"
             "extern \"C\" void hw_attn_out(const hw_attn_out_args* a) {\n"
             "  static bool have = false; static hw_bf16 saved[HW_H];\n"
             "  if (have) { for (int i = 0; i < HW_H; ++i) a->residual[i] = saved[i]; return; }\n"
             "  real(a); for (int i = 0; i < HW_H; ++i) saved[i] = a->residual[i]; have = true;\n"
             "}\n"
             "static void real(const hw_attn_out_args* a) {"));
  ASSERT_EQ(r.status, Status::kIncorrect) << r.description;
  EXPECT_EQ(r.details["failed_call"], 2);
}

TEST_F(PlantedKernels, CrashIsReportedWithItsSignal) {
  const auto r = check(
      "attn_out",
      mutate(
          "attn_out", "const float inv = hw::rms_inv(y, HW_H);",
          "*static_cast<volatile int*>(nullptr) = 1;\n  const float inv = hw::rms_inv(y, HW_H);"));
  ASSERT_EQ(r.status, Status::kCrashed) << r.description;
  EXPECT_EQ(r.kind, "failed-to-run");
  EXPECT_EQ(run_status_of(r), "crashed");
  EXPECT_EQ(r.details["run"]["signal"], SIGSEGV);
  EXPECT_NE(r.description.find("SIGSEGV"), std::string::npos);
}

TEST_F(PlantedKernels, EndlessLoopTimesOut) {
  const auto r = check("attn_out",
                       mutate("attn_out", "const float inv = hw::rms_inv(y, HW_H);",
                              "for (volatile int spin = 0;; spin = spin + 1) {}\n  const float inv "
                              "= hw::rms_inv(y, HW_H);"),
                       1.0);
  ASSERT_EQ(r.status, Status::kTimedOut) << r.description;
  EXPECT_EQ(run_status_of(r), "timed-out");
  EXPECT_LT(r.seconds, 8.0);
}

TEST_F(PlantedKernels, MemoryHogHitsTheLimit) {
  const auto r =
      check("attn_out",
            mutate("attn_out", "const float inv = hw::rms_inv(y, HW_H);",
                   "for (;;) { char* p = static_cast<char*>(malloc(1 << 20));\n"
                   "  if (!p) abort();\n  for (int i = 0; i < (1 << 20); i += 4096) p[i] = 1; }\n"
                   "  const float inv = hw::rms_inv(y, HW_H);")
                .insert(0, "#include <cstdlib>\n"),
            20.0, 256ull << 20);
  ASSERT_EQ(r.status, Status::kCrashed) << r.description;
  EXPECT_EQ(run_status_of(r), "memory-exceeded") << r.description;
}

TEST_F(PlantedKernels, ExitDuringTheCallIsReported) {
  const auto r = check("attn_out", mutate("attn_out", "const float inv = hw::rms_inv(y, HW_H);",
                                          "_exit(7);\n  const float inv = hw::rms_inv(y, HW_H);")
                                       .insert(0, "#include <unistd.h>\n"));
  ASSERT_EQ(r.status, Status::kCrashed) << r.description;
  EXPECT_EQ(run_status_of(r), "exited");
  EXPECT_EQ(r.details["run"]["exit_code"], 7);
}

TEST_F(PlantedKernels, MissingEntryPointIsALoadFailure) {
  const auto r = check(
      "qkv", mutate("qkv", "extern \"C\" void hw_qkv(", "extern \"C\" void hw_qkv_misspelled("));
  ASSERT_EQ(r.status, Status::kUnloadable) << r.description;
  EXPECT_EQ(r.kind, "load-failed");
  EXPECT_NE(r.description.find("does not define hw_qkv"), std::string::npos) << r.description;
}

TEST_F(PlantedKernels, FreshSeedsDifferAndFixedSeedRepeats) {
  const targets::BuildOutcome built = build_candidate(
      Toolchain{}, *identity_, std::string(host_abi(*builtin_kernel("attn_out")).baseline_source()),
      *cache_);
  const auto a = check_candidate(*builtin_kernel("attn_out"), built.artifact.path, {});
  const auto b = check_candidate(*builtin_kernel("attn_out"), built.artifact.path, {});
  EXPECT_NE(a.seed, b.seed);
  targets::CheckOptions fixed;
  fixed.seed = 5;
  EXPECT_EQ(check_candidate(*builtin_kernel("attn_out"), built.artifact.path, fixed).seed, 5u);
}

}  // namespace
}  // namespace headway::cpu
