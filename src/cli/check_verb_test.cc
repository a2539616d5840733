// `headway check` and `headway bench` as a user runs them: a real binary, real files, exit codes.
#include <gtest/gtest.h>
#include <sched.h>

#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>

#include "common/subprocess.h"

namespace headway {
namespace {

namespace fs = std::filesystem;

class CheckVerb : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = fs::temp_directory_path() / ("headway-cli-test-" + std::to_string(getpid()));
    fs::create_directories(dir_);
    setenv("HEADWAY_CACHE_DIR", (dir_ / "cache").c_str(), 1);
  }
  void TearDown() override { fs::remove_all(dir_); }
  fs::path write(const std::string& name, const std::string& text) {
    std::ofstream(dir_ / name) << text;
    return dir_ / name;
  }
  static ProcessResult headway(std::vector<std::string> args) {
    args.insert(args.begin(), HEADWAY_BINARY);
    return run_process(args, 120.0);
  }
  static std::string baseline(const std::string& kernel) {
    return (fs::path(HEADWAY_SOURCE_DIR) / "kernels/baselines" / (kernel + ".cc")).string();
  }
  fs::path dir_;
};

TEST_F(CheckVerb, BaselineIsCorrect) {
  const auto r =
      headway({"check", "--kernel", "attn_out", "--source", baseline("attn_out"), "--seed", "9"});
  EXPECT_EQ(r.exit_code, 0) << r.output;
  EXPECT_NE(r.output.find("correct (seed 9)"), std::string::npos) << r.output;
}

TEST_F(CheckVerb, WrongKernelExitsOneWithTheWorstElement) {
  const auto src = write(
      "zeros.cc",
      "#include \"headway_kernel.h\"\nextern \"C\" void hw_attn_out(const hw_attn_out_args* a) {\n"
      "  for (int i = 0; i < HW_H; ++i) a->residual[i] = 0; }\n");
  const auto r = headway({"check", "--kernel", "attn_out", "--source", src.string(), "--json"});
  EXPECT_EQ(r.exit_code, 1) << r.output;
  const auto j = nlohmann::json::parse(r.output);
  EXPECT_EQ(j["status"], "incorrect");
  EXPECT_EQ(j["kind"], "incorrect");
  EXPECT_EQ(j["target"], "cpu");
  const auto& violation = j["details"]["violation"];
  EXPECT_EQ(violation["kind"], "wrong-value");
  EXPECT_EQ(violation["region"], "residual");
  EXPECT_EQ(violation["got"], 0.0);
  EXPECT_TRUE(violation.contains("index") && violation.contains("expected") &&
              violation.contains("tolerance"));
  EXPECT_EQ(j["details"]["failed_call"], 1);
}

TEST_F(CheckVerb, CrashExitsOneAndNamesTheSignal) {
  const auto src =
      write("crash.cc",
            "#include \"headway_kernel.h\"\n#include <csignal>\n"
            "extern \"C\" void hw_attn_out(const hw_attn_out_args*) { std::raise(SIGBUS); }\n");
  const auto r = headway({"check", "--kernel", "attn_out", "--source", src.string()});
  EXPECT_EQ(r.exit_code, 1) << r.output;
  EXPECT_NE(r.output.find("SIGBUS"), std::string::npos) << r.output;
}

TEST_F(CheckVerb, BadInputExitsTwoWithOneLine) {
  struct Case {
    std::vector<std::string> args;
    std::string message;
  };
  const auto no_entry =
      write("no_entry.cc", "#include \"headway_kernel.h\"\nextern \"C\" void other() {}\n");
  const auto broken = write("broken.cc", "this is not C++\n");
  const std::vector<Case> cases = {
      {{"check", "--kernel", "gemm", "--source", baseline("qkv")},
       "unknown kernel 'gemm' (known: qkv, attn_out, ffn; a kernel added to a workspace needs "
       "--workspace)"},
      {{"check", "--kernel", "qkv", "--source", (dir_ / "missing.cc").string()},
       "cannot read source"},
      {{"check", "--kernel", "qkv", "--source", no_entry.string()}, "does not define hw_qkv"},
      {{"check", "--kernel", "qkv"}, "--source is required"},
  };
  for (const auto& c : cases) {
    const auto r = headway(c.args);
    EXPECT_EQ(r.exit_code, 2) << c.message << "\n" << r.output;
    EXPECT_NE(r.output.find(c.message), std::string::npos) << r.output;
  }
  // A compiler that is not there is a problem of the machine, not of the input: exit 3.
  const auto no_cxx = headway(
      {"check", "--kernel", "qkv", "--source", baseline("qkv"), "--cxx", "/nonexistent/g++"});
  EXPECT_EQ(no_cxx.exit_code, 3) << no_cxx.output;
  EXPECT_EQ(no_cxx.output.rfind("headway: ", 0), 0u) << no_cxx.output;
  EXPECT_NE(no_cxx.output.find("compiler not found"), std::string::npos) << no_cxx.output;
  auto cache_entries = [&] {
    std::vector<fs::path> entries;
    for (const auto& e : fs::recursive_directory_iterator(dir_ / "cache"))
      entries.push_back(e.path());
    return entries;
  };
  const auto before = cache_entries();
  const auto r = headway({"check", "--kernel", "qkv", "--source", broken.string()});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.output.find("does not build"), std::string::npos) << r.output;
  EXPECT_NE(r.output.find("error"), std::string::npos) << "the compiler's diagnostics are printed";
  EXPECT_EQ(cache_entries(), before) << "a failed build leaves nothing behind";
}

TEST_F(CheckVerb, BenchJsonCarriesTheFloorAndRatio) {
  const auto r = headway({"bench", "--kernel", "attn_out", "--readings", "3", "--json"});
  ASSERT_EQ(r.exit_code, 0) << r.output;
  const auto j = nlohmann::json::parse(r.output);
  ASSERT_EQ(j["kernels"].size(), 1u);
  const auto& k = j["kernels"][0];
  EXPECT_EQ(k["name"], "attn_out");
  EXPECT_EQ(k["bytes"], 15767552);
  EXPECT_EQ(j["target"], "cpu");
  double bw = 0.0;
  std::string method;
  for (const auto& f : j["facts"]) {
    if (f["name"] == "read_bandwidth") {
      bw = f["value"];
      method = f["method"];
    }
  }
  const double floor_ms = k["floor_ms"], median_ms = k["median_ms"];
  EXPECT_GT(bw, 0.5);
  // The cpu target times on shared cores: the facts are measured before and after the readings.
  EXPECT_NE(method.find("the larger of its measurements just before ("), std::string::npos)
      << method;
  EXPECT_TRUE(j["floor"]["around"]);
  EXPECT_GT(double(k["instruction_floor_ms"]), 0.0) << "the decode ceiling was measured";
  EXPECT_NEAR(floor_ms, 15767552 / (bw * 1e9) * 1e3, 1e-9);
  EXPECT_NEAR(double(k["ratio_to_floor"]), median_ms / floor_ms, 1e-9);
  EXPECT_GT(double(k["ratio_to_floor"]), 1.0) << "nothing beats the memory floor";
}

// bench --one-core: the readings of one core (Target::time_on_one_core), against the floor at
// one thread's read bandwidth; refused where the target does not time on this machine's cores.
TEST_F(CheckVerb, BenchOneCoreTimesAgainstOneThreadsFloor) {
  const auto r =
      headway({"bench", "--kernel", "attn_out", "--readings", "3", "--one-core", "--json"});
  ASSERT_EQ(r.exit_code, 0) << r.output;
  const auto j = nlohmann::json::parse(r.output);
  const double one_thread = j["one_core"]["read_bandwidth_gbps"];
  double fact = 0.0;
  for (const auto& f : j["facts"]) {
    if (f["name"] == "read_bandwidth.threads_1") fact = f["value"];
  }
  EXPECT_GT(one_thread, 0.5);
  EXPECT_DOUBLE_EQ(one_thread, fact) << "not the one-thread fact of the bracket";
  const auto& k = j["kernels"][0];
  EXPECT_NEAR(double(k["floor_ms"]), 15767552 / (one_thread * 1e9) * 1e3, 1e-9);
  EXPECT_NEAR(double(k["gbps"]), 15767552 / (double(k["median_ms"]) * 1e6), 1e-9);
  EXPECT_TRUE(k["instruction_floor_ms"].is_null()) << "no decode ceiling of one core is measured";

  const auto sim = headway({"bench", "--target", "sim", "--kernel", "qkv", "--one-core"});
  EXPECT_EQ(sim.exit_code, 2) << sim.output;
  EXPECT_NE(sim.output.find("--one-core: the sim target does not time on this machine's cores"),
            std::string::npos)
      << sim.output;
  const auto step = headway({"bench", "--step", "--one-core"});
  EXPECT_EQ(step.exit_code, 2) << step.output;
  EXPECT_NE(step.output.find("--one-core goes with a plain bench"), std::string::npos)
      << step.output;
}

// The readings of --one-core are taken on one CPU: a candidate that does its work only where its
// process may run on one CPU alone passes them, and fails the plain bench's verification (where
// the machine has two CPUs or more).
TEST_F(CheckVerb, BenchOneCoreRunsTheCandidateOnOneCpu) {
  std::ifstream in(fs::path(HEADWAY_SOURCE_DIR) / "kernels/baselines/attn_out.cc");
  std::string source((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  const std::string entry = "extern \"C\" void hw_attn_out(const hw_attn_out_args* a)";
  ASSERT_NE(source.find(entry), std::string::npos);
  source.replace(source.find(entry), entry.size(), "static void real(const hw_attn_out_args* a)");
  const fs::path one_cpu = write("one_cpu.cc", "#include <sched.h>\n" + source + "\n" + entry +
                                                   " {\n  cpu_set_t set;\n"
                                                   "  if (sched_getaffinity(0, sizeof set, &set) "
                                                   "== 0 && CPU_COUNT(&set) == 1) real(a);\n}\n");
  const auto one = headway({"bench", "--kernel", "attn_out", "--source", one_cpu.string(),
                            "--readings", "2", "--one-core"});
  EXPECT_EQ(one.exit_code, 0) << one.output;
  cpu_set_t ours;
  ASSERT_EQ(sched_getaffinity(0, sizeof ours, &ours), 0);
  if (CPU_COUNT(&ours) < 2) GTEST_SKIP() << "one CPU: every bench runs on one";
  const auto all =
      headway({"bench", "--kernel", "attn_out", "--source", one_cpu.string(), "--readings", "2"});
  EXPECT_EQ(all.exit_code, 1) << all.output;
}

// Bench speaks to the Target interface alone: on the sim target its floors and times are the
// simulation's (floor = bytes at 50 GB/s, baseline at 6x the floor with 1% noise).
TEST_F(CheckVerb, BenchRunsOnAnyTarget) {
  const auto r =
      headway({"bench", "--target", "sim", "--kernel", "qkv", "--readings", "9", "--json"});
  ASSERT_EQ(r.exit_code, 0) << r.output;
  const auto j = nlohmann::json::parse(r.output);
  EXPECT_EQ(j["target"], "sim");
  ASSERT_EQ(j["kernels"].size(), 1u);
  const auto& k = j["kernels"][0];
  EXPECT_NEAR(double(k["floor_ms"]), double(k["bytes"]) / 50e9 * 1e3, 1e-12);
  EXPECT_NEAR(double(k["ratio_to_floor"]), 6.0, 0.3);
  EXPECT_EQ(j["facts"][0]["method"].get<std::string>().find("the median of"), std::string::npos)
      << "the sim's floor does not move with the hour: measured once";
  EXPECT_EQ(k["readings"], 9);
  const auto unknown = headway({"bench", "--target", "no-such-target", "--kernel", "qkv"});
  EXPECT_EQ(unknown.exit_code, 2) << unknown.output;
  EXPECT_NE(unknown.output.find("target 'no-such-target'"), std::string::npos) << unknown.output;
}

TEST_F(CheckVerb, CheckRunsOnAnyTarget) {
  const fs::path plain = write("plain.sim", "sim-x 1\n");
  const auto r = headway(
      {"check", "--target", "sim", "--kernel", "ffn", "--source", plain.string(), "--json"});
  ASSERT_EQ(r.exit_code, 0) << r.output;
  EXPECT_EQ(nlohmann::json::parse(r.output)["status"], "correct");
  const fs::path wrong = write("wrong.sim", "sim-x 1\nsim-wrong\n");
  const auto w = headway(
      {"check", "--target", "sim", "--kernel", "ffn", "--source", wrong.string(), "--json"});
  EXPECT_EQ(w.exit_code, 1) << w.output;
  EXPECT_EQ(nlohmann::json::parse(w.output)["status"], "incorrect") << w.output;
}

TEST_F(CheckVerb, BenchRejectsSourceWithoutKernel) {
  const auto r = headway({"bench", "--source", baseline("qkv")});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.output.find("--source needs --kernel"), std::string::npos) << r.output;
}

TEST_F(CheckVerb, ThePacksManifestNamesTheCommandTargetsToolchainEitherWay) {
  const fs::path pack = fs::path(HEADWAY_SOURCE_DIR) / "packs/standin";
  std::ifstream in(pack / "repo/kernels/attn_out.tk");
  const std::string plain((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  const fs::path source = write("a.tk", "// headway-file: kernels/attn_out.tk\n" + plain);
  const std::string manifest = (pack / "target.toml").string();
  for (const char* option : {"--manifest", "--toolchain"}) {
    const auto r = headway({"check", "--target", "command", option, manifest, "--kernel",
                            "attn_out", "--source", source.string()});
    EXPECT_EQ(r.exit_code, 0) << option << ": " << r.output;
  }
  const auto without = headway(
      {"check", "--target", "command", "--kernel", "attn_out", "--source", source.string()});
  EXPECT_EQ(without.exit_code, 2);
  EXPECT_NE(without.output.find("--target command needs --manifest"), std::string::npos)
      << without.output;
}

TEST_F(CheckVerb, AMultiShapeChecksSeedReproducesItAndItsMarginNamesItsShapeSet) {
  const std::string spec = (fs::path(HEADWAY_SOURCE_DIR) / "kernels/specs/rmsnorm/rmsnorm.toml");
  const std::string source =
      (fs::path(HEADWAY_SOURCE_DIR) / "kernels/specs/rmsnorm/rmsnorm_cpu.cc").string();
  const auto first = headway({"check", "--kernel", spec, "--source", source, "--json"});
  ASSERT_EQ(first.exit_code, 0) << first.output;
  const auto j = nlohmann::json::parse(first.output);
  // A drawn seed fits a double exactly, so that jq and friends give it back unchanged.
  const uint64_t seed = j["seed"].get<uint64_t>();
  EXPECT_LT(seed, uint64_t{1} << 53);
  const std::string set = j["details"]["shape_set"].get<std::string>();
  EXPECT_TRUE(set == "gemma4" || set == "small") << set;
  const auto again = headway(
      {"check", "--kernel", spec, "--source", source, "--json", "--seed", std::to_string(seed)});
  ASSERT_EQ(again.exit_code, 0) << again.output;
  const auto k = nlohmann::json::parse(again.output);
  EXPECT_EQ(k["details"]["shape_set"], set);
  EXPECT_EQ(k["details"]["error_share"], j["details"]["error_share"])
      << "the same seed draws the same inputs at every shape set";
}

}  // namespace
}  // namespace headway
