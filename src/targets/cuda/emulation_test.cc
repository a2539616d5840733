// The cuda target's emulated toolchain (emulation.h): kernel files built for host threads and
// run by the stand-in driver, kept by a workspace so that the loop and the verbs run the cuda
// target end to end without a GPU. Real builds (g++), the real runner, real subprocesses.
#include "targets/cuda/emulation.h"

#include <gtest/gtest.h>
#include <stdlib.h>

#include <nlohmann/json.hpp>

#include "cli/cli_test_support.h"
#include "store/test_temp_dir.h"
#include "targets/cuda/cuda_target.h"
#include "targets/cuda/runner_client.h"

#ifdef HEADWAY_FAKE_LIBCUDA
namespace headway::cuda {
namespace {

namespace fs = std::filesystem;

TEST(CudaEmulation, TheLauncherTakesTheOneArgumentStructTheSourceNames) {
  EXPECT_EQ(emulated_kernel_of("__global__ void k(hw_attn_out_args a, unsigned char* s) {}"),
            "attn_out");
  EXPECT_EQ(emulated_kernel_of("void k(hw_qkv_args a); void j(hw_qkv_args b);"), "qkv");
  EXPECT_EQ(emulated_kernel_of("void k(hw_qkv_args a); void j(hw_ffn_args b);"), "");
  EXPECT_EQ(emulated_kernel_of("void k(int a);"), "");
  EXPECT_EQ(emulated_kernel_of("void k(my_hw_qkv_args_t a);"), "");
}

// The runner and the stand-in driver as the build places them: beside headway_tests.
class EmulatedToolchain : public ::testing::Test {
 protected:
  void SetUp() override { unsetenv("HEADWAY_CUDA_DRIVER"); }
  void TearDown() override { unsetenv("HEADWAY_CUDA_DRIVER"); }
  const KernelContract& attn_out() const { return *builtin_kernel("attn_out"); }
  store::TestTempDir cache_;
};

TEST_F(EmulatedToolchain, BuildsTheBaselineWhichTheStandInDriverChecksTimesAndMeasures) {
  CudaTarget t{std::string(kEmulatedSpec)};
  ASSERT_TRUE(t.identity().found) << t.identity().error;
  EXPECT_TRUE(t.emulated());
  EXPECT_EQ(t.toolchain(), "emulated");
  EXPECT_EQ(t.identity().id.rfind("emulated on host threads (not a GPU): ", 0), 0u)
      << t.identity().id;
  EXPECT_NE(t.identity().caveat.find("never a GPU's"), std::string::npos) << t.identity().caveat;
  EXPECT_EQ(stand_in_driver(), fs::path(HEADWAY_FAKE_LIBCUDA));

  const auto built = t.build(t.baseline_source(attn_out()), cache_.path());
  ASSERT_TRUE(built.built()) << built.diagnostics;
  EXPECT_EQ(built.artifact.path.extension(), ".so");
  EXPECT_EQ(built.artifact.meta.value("emulated", false), true);
  EXPECT_EQ(t.build(t.baseline_source(attn_out()), cache_.path()).artifact.path,
            built.artifact.path)
      << "an identical build is cached";
  const auto checked = t.check(attn_out(), built.artifact, {5, {}});
  EXPECT_TRUE(checked.correct()) << checked.description;
  const auto timed = t.time_side_by_side(attn_out(), {built.artifact}, 2, 1);
  ASSERT_TRUE(timed[0].ok()) << timed[0].failure;
  EXPECT_GT(timed[0].median_seconds, 0.0);

  bool copy_bandwidth = false;
  for (const auto& f : t.measure_facts({0, 3, 1, {}})) {
    EXPECT_EQ(f.method.rfind("emulated on host threads: ", 0), 0u) << f.name << ": " << f.method;
    copy_bandwidth |= f.name == kCopyBandwidth && f.value > 0.0;
  }
  EXPECT_TRUE(copy_bandwidth);
}

TEST_F(EmulatedToolchain, ABrokenSourceIsACompileErrorWithTheCompilersWords) {
  CudaTarget t{std::string(kEmulatedSpec)};
  ASSERT_TRUE(t.identity().found) << t.identity().error;
  const auto no_args = t.build("extern \"C\" void k(int* p) { *p = 1; }", cache_.path());
  EXPECT_EQ(no_args.status, targets::BuildOutcome::Status::kCompileError);
  EXPECT_NE(no_args.diagnostics.find("hw_<kernel>_args"), std::string::npos) << no_args.diagnostics;
  const auto wrong = t.build(
      "#include \"headway_cuda.h\"\n"
      "extern \"C\" __global__ void k(hw_attn_out_args a, unsigned char*) { undeclared(a); }\n",
      cache_.path());
  EXPECT_EQ(wrong.status, targets::BuildOutcome::Status::kCompileError);
  EXPECT_NE(wrong.diagnostics.find("undeclared"), std::string::npos) << wrong.diagnostics;
}

TEST_F(EmulatedToolchain, WithoutTheStandInDriverItIsNotFoundAndSaysWhatIsMissing) {
  setenv("HEADWAY_CUDA_DRIVER", "/nonexistent/libcuda-stand-in.so", 1);
  CudaTarget t{std::string(kEmulatedSpec)};
  EXPECT_FALSE(t.identity().found);
  EXPECT_NE(t.identity().error.find("stand-in driver /nonexistent/libcuda-stand-in.so"),
            std::string::npos)
      << t.identity().error;
  EXPECT_EQ(t.build(t.baseline_source(attn_out()), cache_.path()).status,
            targets::BuildOutcome::Status::kToolchainMissing);

  // init refuses it (the environment lacks it: exit 3) and leaves no workspace behind.
  const fs::path ws = cache_.path() / "ws";
  const auto init = cli::run_split(
      "/usr/bin/env", {"HEADWAY_CUDA_DRIVER=/nonexistent/libcuda-stand-in.so", HEADWAY_BINARY,
                       "init", ws.string(), "--target", "cuda", "--toolchain", "emulated"});
  EXPECT_EQ(init.exit_code, 3) << init.err;
  EXPECT_NE(init.err.find("stand-in driver"), std::string::npos) << init.err;
  EXPECT_FALSE(fs::exists(ws));
}

TEST(CudaEmulationCli, EmulatedIsTheCudaTargetsOnly) {
  store::TestTempDir dir;
  const fs::path ws = dir.path() / "ws";
  for (const auto& args : std::vector<std::vector<std::string>>{
           {"init", ws.string(), "--target", "cpu", "--toolchain", "emulated"},
           {"init", ws.string(), "--target", "sim", "--toolchain", "emulated"},
           {"check", "--target", "cpu", "--toolchain", "emulated", "--kernel", "attn_out",
            "--source", std::string(HEADWAY_SOURCE_DIR) + "/kernels/baselines/attn_out.cc"}}) {
    const auto r = cli::run_headway(args, dir.path().string());
    EXPECT_EQ(r.exit_code, 2) << args[2] << ": " << r.err;
    EXPECT_NE(r.err.find("--toolchain emulated is the cuda target's"), std::string::npos) << r.err;
  }
  const auto no_target = cli::run_headway({"init", ws.string(), "--toolchain", "emulated"});
  EXPECT_EQ(no_target.exit_code, 2) << no_target.err;
  EXPECT_NE(no_target.err.find("--toolchain needs --target"), std::string::npos) << no_target.err;
  EXPECT_FALSE(fs::exists(ws));

  // Nor can a cpu workspace migrate to it.
  const fs::path cpu = dir.path() / "cpu";
  ASSERT_EQ(cli::run_headway({"init", cpu.string(), "--target", "cpu"}).exit_code, 0);
  const auto migrate =
      cli::run_headway({"migrate", "--toolchain", "emulated", "--workspace", cpu.string()});
  EXPECT_EQ(migrate.exit_code, 2) << migrate.err;
  EXPECT_NE(migrate.err.find("the cpu target has no emulated toolchain"), std::string::npos)
      << migrate.err;
}

// The loop on the emulated cuda target, with the design library (no LLM), attn_out only (qkv
// and ffn emulate for longer): every kernel is registered and acceptance tests decided, and the
// verbs after it use the toolchain the workspace keeps. About 60 s on an idle two-core machine.
TEST(CudaEmulationCli, OptimizeRunsTheCudaTargetEndToEndWithoutAGpu) {
  if (gpu_info().ok()) GTEST_SKIP() << "a GPU is present: the cuda target runs on it";
  store::TestTempDir dir;
  const fs::path ws = dir.path() / "ws";
  auto r = cli::run_headway({"init", ws.string(), "--target", "cuda", "--toolchain", "emulated"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  r = cli::run_headway(
      {"optimize", "--kernels", "attn_out", "--budget", "90s", "--workspace", ws.string()}, "",
      600.0);
  if (r.exit_code == 3) GTEST_SKIP() << "no sandbox: " << r.err;
  ASSERT_EQ(r.exit_code, 0) << r.out << r.err;
  EXPECT_EQ(r.err.find("cannot load the module"), std::string::npos) << r.err;
  EXPECT_EQ(r.out.find("stopped"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("optimize: note: the cuda target is emulated on host threads"),
            std::string::npos)
      << r.out;

  r = cli::run_headway({"status", "--json", "--workspace", ws.string()});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const auto status = nlohmann::json::parse(r.out);
  EXPECT_EQ(status["toolchain"].get<std::string>().rfind("emulated on host threads", 0), 0u)
      << r.out;
  EXPECT_FALSE(status["toolchain_caveat"].is_null()) << r.out;
  ASSERT_EQ(status["kernels"].size(), 1u) << r.out;
  const auto& attn = status["kernels"][0];
  EXPECT_EQ(attn["name"], "attn_out");
  EXPECT_GT(attn["floor_ms"].get<double>(), 0.0) << "a floor from the emulated copy bandwidth";
  int decided = 0;
  for (const char* outcome : {"FASTER", "SLOWER", "SAME"})
    decided += attn["tests"][outcome].get<int>();
  EXPECT_GE(decided, 1) << r.out;

  // check in the workspace, with no flags, builds and runs on the emulated device.
  r = cli::run_headway(
      {"check", "--kernel", "attn_out", "--source",
       std::string(HEADWAY_SOURCE_DIR) + "/kernels/cuda/baselines/attn_out.cu", "--json"},
      ws.string());
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const auto check = nlohmann::json::parse(r.out);
  EXPECT_EQ(check["target"], "cuda");
  EXPECT_EQ(check["status"], "correct");
}

}  // namespace
}  // namespace headway::cuda
#endif
