// The cuda target without a GPU: nvcc builds every baseline and design (every listed value of
// every parameter), and everything that needs the device says in one line that there is none.
#include "targets/cuda/cuda_target.h"

#include <gtest/gtest.h>
#include <stdlib.h>

#include <fstream>
#include <iterator>

#include "cli/cli_test_support.h"
#include "kernels/spec_kernel.h"
#include "store/test_temp_dir.h"
#include "targets/cuda/runner_client.h"
#include "targets/design_library.h"
#include "targets/registry/registry.h"

namespace headway::cuda {
namespace {

std::string file_bytes(const std::filesystem::path& p) {
  std::ifstream in(p, std::ios::binary);
  return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}

bool nvcc_found(const CudaTarget& t) { return t.identity().found; }

TEST(CudaToolchain, TheSpecNamesNvccAndTheArchitecture) {
  unsetenv("HEADWAY_CUDA_ARCH");
  EXPECT_EQ(toolchain_for("", "").arch, "sm_90");
  EXPECT_EQ(toolchain_for("", "sm_89").arch, "sm_89");
  const NvccToolchain both = toolchain_for("/opt/cuda/bin/nvcc@sm_80", "sm_90");
  EXPECT_EQ(both.nvcc, "/opt/cuda/bin/nvcc");
  EXPECT_EQ(both.arch, "sm_80");
  EXPECT_EQ(toolchain_for("@sm_100a", "").arch, "sm_100a");
  EXPECT_FALSE(toolchain_for("@sm_100a", "").nvcc.empty());
  setenv("HEADWAY_CUDA_ARCH", "sm_75", 1);
  EXPECT_EQ(toolchain_for("", "").arch, "sm_75");
  EXPECT_EQ(toolchain_for("", "sm_90").arch, "sm_90");  // the GPU present wins
  unsetenv("HEADWAY_CUDA_ARCH");
}

TEST(CudaToolchain, ABadArchitectureOrAMissingNvccIsNotFound) {
  const auto bad_arch = identify({"nvcc", "90"});
  EXPECT_FALSE(bad_arch.found);
  EXPECT_EQ(bad_arch.error, "'90' is not a CUDA architecture (sm_NN, e.g. sm_90)");
  const auto missing = identify({"/nonexistent/nvcc", "sm_90"});
  EXPECT_FALSE(missing.found);
  EXPECT_NE(missing.error.find("/nonexistent/nvcc"), std::string::npos) << missing.error;
  CudaTarget t("/nonexistent/nvcc@sm_90");
  store::TestTempDir cache;
  EXPECT_EQ(t.build("int x;", cache.path()).status,
            targets::BuildOutcome::Status::kToolchainMissing);
}

TEST(CudaTarget, NvccBuildsEveryBaselineAndEveryDesignValue) {
  CudaTarget t("@sm_90");
  if (!nvcc_found(t)) GTEST_SKIP() << "no nvcc: " << t.identity().error;
  EXPECT_NE(t.identity().id.find("sm_90"), std::string::npos) << t.identity().id;
  store::TestTempDir cache;
  int built = 0;
  auto build = [&](const std::string& label, const std::string& source) {
    const auto b = t.build(source, cache.path());
    ASSERT_TRUE(b.built()) << label << ":\n" << b.diagnostics;
    // The runner finds the plan by its symbol: it must be in the module, unmangled.
    EXPECT_NE(file_bytes(b.artifact.path).find("hw_plan"), std::string::npos) << label;
    EXPECT_EQ(b.artifact.meta.value("arch", ""), "sm_90");
    ++built;
  };
  for (const auto& name : builtin_kernel_names()) {
    const KernelContract& kernel = *builtin_kernel(name);
    build(name + " baseline", t.baseline_source(kernel));
    const auto& designs = targets::designs_for(t, *builtin_kernel(name));
    EXPECT_GE(designs.size(), 2u) << name;
    for (const auto& d : designs) {
      build(name + "/" + d.name, d.render(d.defaults()));
      for (const auto& values : d.neighbours(d.defaults())) {
        std::string label = name + "/" + d.name;
        for (const auto& [p, v] : values) label += " " + p + "=" + std::to_string(v);
        build(label, d.render(values));
      }
    }
  }
  EXPECT_GE(built, 9);
  // The second build of a source is the cached module.
  EXPECT_TRUE(t.build(t.baseline_source(*builtin_kernel("qkv")), cache.path()).cached);
}

TEST(CudaTarget, ACompileErrorIsDiagnosedNotThrown) {
  CudaTarget t("@sm_90");
  if (!nvcc_found(t)) GTEST_SKIP() << "no nvcc: " << t.identity().error;
  store::TestTempDir cache;
  const auto b = t.build("#include \"headway_cuda.h\"\n__global__ void k() { undefined_name(); }\n",
                         cache.path());
  EXPECT_EQ(b.status, targets::BuildOutcome::Status::kCompileError);
  EXPECT_NE(b.diagnostics.find("undefined_name"), std::string::npos) << b.diagnostics;
  EXPECT_FALSE(t.normalize_diagnostic(b.diagnostics).signature.empty());
}

TEST(CudaTarget, AKernelFromASpecWithoutACudaBaselineIsRefusedInOneLine) {
  store::TestTempDir cache;
  auto kernel = load_spec_kernel(
      std::filesystem::path(HEADWAY_SOURCE_DIR) / "kernels/specs/kv_append/kv_append.toml",
      cache.path());
  ASSERT_TRUE(kernel) << kernel.error().message;
  CudaTarget t("@sm_90");
  try {
    (void)t.baseline_source(*kernel.value());
    FAIL() << "a cuda baseline for a spec kernel";
  } catch (const Failure& e) {
    EXPECT_EQ(e.code(), ErrorCode::kInvalidInput);
    EXPECT_EQ(std::string(e.what()),
              "kernel kv_append has no cuda baseline: the cuda target runs the built-in kernels "
              "(qkv, attn_out, ffn) and kernels whose spec names one (baselines.cuda = \"FILE\")");
  }
}

TEST(CudaTarget, WithoutAGpuEveryDeviceCallSaysSoInOneLine) {
  if (gpu_info().ok()) GTEST_SKIP() << "a GPU is present";
  CudaTarget t("@sm_90");
  if (!nvcc_found(t)) GTEST_SKIP() << "no nvcc: " << t.identity().error;
  store::TestTempDir cache;
  const auto b = t.build(t.baseline_source(*builtin_kernel("attn_out")), cache.path());
  ASSERT_TRUE(b.built()) << b.diagnostics;
  try {
    t.check(*builtin_kernel("attn_out"), b.artifact, {});
    FAIL() << "check ran without a GPU";
  } catch (const targets::DeviceUnavailable& e) {
    const std::string what = e.what();
    EXPECT_EQ(what.rfind("no GPU is present: ", 0), 0u) << what;
    EXPECT_EQ(what.find('\n'), std::string::npos) << what;
  }
  EXPECT_THROW(t.measure_facts({}), targets::DeviceUnavailable);
  EXPECT_THROW(t.start_session(*builtin_kernel("attn_out"), {b.artifact}, 1),
               targets::DeviceUnavailable);
}

TEST(CudaTarget, TheCheckVerbSaysInOneLineThatNoGpuIsPresent) {
  if (gpu_info().ok()) GTEST_SKIP() << "a GPU is present";
  if (!nvcc_found(CudaTarget("@sm_90"))) GTEST_SKIP() << "no nvcc";
  store::TestTempDir cache;
  const std::string source =
      std::string(HEADWAY_SOURCE_DIR) + "/kernels/cuda/baselines/attn_out.cu";
  const auto run = cli::run_split(
      "/usr/bin/env",
      {"HEADWAY_CACHE_DIR=" + cache.path().string(), "HEADWAY_CUDA_ARCH=sm_90", HEADWAY_BINARY,
       "check", "--target", "cuda", "--kernel", "attn_out", "--source", source});
  ASSERT_TRUE(run.problem.empty()) << run.problem;
  EXPECT_EQ(run.exit_code, 3) << run.err;
  EXPECT_EQ(run.err.rfind("headway: no GPU is present: ", 0), 0u) << run.err;
  EXPECT_EQ(std::count(run.err.begin(), run.err.end(), '\n'), 1) << run.err;
  EXPECT_EQ(run.out, "");
}

TEST(CudaTarget, FloorsAreTheBytesToMoveAtTheCopyBandwidth) {
  CudaTarget t("/nonexistent/nvcc@sm_90");
  const KernelContract& ffn = *builtin_kernel("ffn");
  const auto f = t.floors(ffn, {{kCopyBandwidth, 4000.0}});
  EXPECT_DOUBLE_EQ(f.memory_ms, static_cast<double>(ffn.bytes_to_move()) / 4e12 * 1e3);
  EXPECT_FALSE(f.instruction_ms.has_value());
  EXPECT_THROW(t.floors(ffn, {}), std::out_of_range);
  EXPECT_EQ(t.floor_facts(), std::vector<std::string>{kCopyBandwidth});
}

TEST(CudaTarget, IsRegisteredWithItsDocsAndHeaders) {
  auto t = targets::make_target("cuda", "/nonexistent/nvcc@sm_90");
  ASSERT_NE(t, nullptr);
  EXPECT_EQ(t->name(), "cuda");
  EXPECT_FALSE(t->times_on_host());
  const auto headers = t->candidate_headers();
  ASSERT_EQ(headers.size(), 4u);
  EXPECT_EQ(headers[0].path, "headway_cuda.h");
  EXPECT_NE(headers[0].text.find("hw_cuda_plan"), std::string::npos);
  const auto docs = t->docs();
  ASSERT_FALSE(docs.files.empty());
  EXPECT_EQ(docs.files[0].path, "docs/targets/cuda.md");
  for (const auto& name : builtin_kernel_names()) {
    EXPECT_NE(t->baseline_source(*builtin_kernel(name)).find("hw_plan"), std::string::npos) << name;
  }
}

}  // namespace
}  // namespace headway::cuda
