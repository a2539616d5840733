// headway-cuda-runner and the cuda target's sessions, end to end on a stand-in driver
// (fake_driver/fake_libcuda.cc): modules are host shared objects whose "kernels" run the cpu
// baseline, so the runner's loading, checking, timing, input sets and verification of timed calls
// are exercised without a GPU. The device itself is the only fake.
#include <gtest/gtest.h>
#include <stdlib.h>

#include <fstream>
#include <set>

#include "common/subprocess.h"
#include "store/test_temp_dir.h"
#include "targets/cuda/cuda_target.h"
#include "targets/cuda/runner_client.h"
#include "targets/design_library.h"

#ifdef HEADWAY_FAKE_LIBCUDA
namespace headway::cuda {
namespace {

namespace fs = std::filesystem;

// Points the runner at the stand-in driver for one test.
class FakeDriver : public ::testing::Test {
 protected:
  void SetUp() override { setenv("HEADWAY_CUDA_DRIVER", HEADWAY_FAKE_LIBCUDA, 1); }
  void TearDown() override { unsetenv("HEADWAY_CUDA_DRIVER"); }

  // A folder holding the candidate headers, as a build of a candidate writes them.
  fs::path module_dir(const std::string& name) {
    const fs::path dir = dir_.path() / name;
    fs::create_directories(dir);
    const fs::path include = fs::path(HEADWAY_SOURCE_DIR) / "include/headway";
    for (const char* header :
         {"headway_kernel.h", "headway_support.h", "headway_cuda.h", "headway_cuda_support.h"})
      fs::copy_file(include / header, dir / header);
    return dir;
  }

  // dir/module.cc built by g++ into dir/module.so, the artifact `name`.
  targets::Artifact build(const std::string& name, const fs::path& dir,
                          const std::vector<std::string>& flags) {
    std::vector<std::string> argv = {"g++",   "-std=c++20", "-O2",       "-shared",
                                     "-fPIC", "-I",         dir.string()};
    argv.insert(argv.end(), flags.begin(), flags.end());
    argv.insert(argv.end(), {(dir / "module.cc").string(), "-o", (dir / "module.so").string()});
    const ProcessResult r = run_process(argv, 300.0);
    EXPECT_TRUE(r.ok()) << name << ": " << r.output;
    return {name, dir / "module.so", {}};
  }

  // A host "module": the kernel's cpu baseline, called from the plan's one launch through
  // `body` (C++ statements with `a`, the argument struct, and `calls`, a call counter).
  targets::Artifact module(const std::string& name, const std::string& body,
                           const std::string& plan = "{{{\"run_rows\", 1, 32, 0}}, 64}",
                           const std::string& kernel = "attn_out") {
    const fs::path dir = module_dir(name);
    std::ifstream baseline(fs::path(HEADWAY_SOURCE_DIR) / "kernels/baselines" / (kernel + ".cc"));
    std::string text((std::istreambuf_iterator<char>(baseline)), std::istreambuf_iterator<char>());
    text += "\n#include <time.h>\n#include \"headway_cuda.h\"\nstatic int calls = 0;\n";
    if (!plan.empty())
      text += "extern \"C\" hw_cuda_plan hw_plan;\nhw_cuda_plan hw_plan = " + plan + ";\n";
    text += "extern \"C\" void run_rows(void** p) {\n  hw_" + kernel +
            "_args& a = *static_cast<hw_" + kernel + "_args*>(p[0]);\n  ++calls;\n  " + body +
            "\n}\n";
    std::ofstream(dir / "module.cc") << text;
    return build(name, dir, {});
  }

  // A real kernel file of the cuda target built for the host (cuda_emulation.h).
  targets::Artifact emulated(const std::string& name, const std::string& kernel,
                             const std::string& source) {
    const fs::path dir = module_dir(name);
    std::ofstream(dir / "candidate.cu") << source;
    std::ofstream(dir / "module.cc")
        << "#include \"candidate.cu\"\nHW_EMULATION_LAUNCHER(hw_" << kernel << "_args)\n";
    const fs::path emulation =
        fs::path(HEADWAY_SOURCE_DIR) / "src/targets/cuda/fake_driver/cuda_emulation.h";
    return build(name, dir, {"-pthread", "-include", emulation.string()});
  }

  const KernelContract& attn_out() const { return *builtin_kernel("attn_out"); }
  CudaTarget target_{"/nonexistent/nvcc@sm_90"};  // builds nothing: the modules are made here
  store::TestTempDir dir_;
};

constexpr const char* kCorrect = "hw_attn_out(&a);";

TEST_F(FakeDriver, TheRunnerReportsTheDevice) {
  auto info = gpu_info();
  ASSERT_TRUE(info.ok()) << info.error().message;
  EXPECT_EQ(info.value().at("name"), "headway fake GPU");
  EXPECT_EQ(info.value().at("arch"), "sm_90");
  EXPECT_EQ(info.value().at("sm_count"), 4);
}

TEST_F(FakeDriver, ChecksACorrectModuleAndNamesWhatIsWrongWithOthers) {
  EXPECT_TRUE(target_.check(attn_out(), module("correct", kCorrect), {3, {}}).correct());

  const auto zeros = target_.check(
      attn_out(), module("zeros", "for (int i = 0; i < HW_H; ++i) a.residual[i] = 0;"), {3, {}});
  EXPECT_EQ(zeros.status, targets::CheckOutcome::Status::kIncorrect);
  EXPECT_NE(zeros.description.find("residual"), std::string::npos) << zeros.description;

  const auto writes_input = target_.check(
      attn_out(), module("writes_input", "hw_attn_out(&a); const_cast<hw_bf16*>(a.attn)[7] ^= 1;"),
      {3, {}});
  EXPECT_EQ(writes_input.status, targets::CheckOutcome::Status::kIncorrect);
  EXPECT_NE(writes_input.description.find("wrote into input `attn`"), std::string::npos)
      << writes_input.description;

  // Right on the first call only: the second call brings new weights at the same addresses.
  const auto once =
      target_.check(attn_out(), module("once", "if (calls == 1) hw_attn_out(&a);"), {3, {}});
  EXPECT_EQ(once.status, targets::CheckOutcome::Status::kIncorrect);
  EXPECT_EQ(once.kind, "wrong-output-after-new-weights") << once.description;

  const auto no_plan = target_.check(attn_out(), module("no_plan", kCorrect, ""), {3, {}});
  EXPECT_EQ(no_plan.status, targets::CheckOutcome::Status::kUnloadable);
  EXPECT_NE(no_plan.description.find("no hw_plan"), std::string::npos) << no_plan.description;

  const auto bad_block = target_.check(
      attn_out(), module("bad_block", kCorrect, "{{{\"run_rows\", 1, 4096, 0}}, 0}"), {3, {}});
  EXPECT_EQ(bad_block.status, targets::CheckOutcome::Status::kUnloadable);
  EXPECT_NE(bad_block.description.find("block 4096"), std::string::npos) << bad_block.description;

  const auto unknown = target_.check(
      attn_out(), module("unknown", kCorrect, "{{{\"elsewhere\", 1, 32, 0}}, 0}"), {3, {}});
  EXPECT_EQ(unknown.status, targets::CheckOutcome::Status::kUnloadable);
  EXPECT_NE(unknown.description.find("'elsewhere'"), std::string::npos) << unknown.description;
}

TEST_F(FakeDriver, TimesArmsSideBySideWithTheirCallsVerified) {
  const auto a = module("a", kCorrect);
  // Twice the work, the same result: the in/out residual is put back between the two calls.
  const auto b =
      module("b",
             "static hw_bf16 saved[HW_H]; for (int i = 0; i < HW_H; ++i) saved[i] = a.residual[i];"
             " hw_attn_out(&a); for (int i = 0; i < HW_H; ++i) a.residual[i] = saved[i]; "
             "hw_attn_out(&a);");
  const auto timed = target_.time_side_by_side(attn_out(), {a, b}, 5, 1);
  ASSERT_EQ(timed.size(), 2u);
  for (const auto& t : timed) {
    ASSERT_TRUE(t.ok()) << t.failure;
    ASSERT_EQ(t.seconds.size(), 5u);
    EXPECT_GT(t.median_seconds, 0.0);
  }
  EXPECT_GT(timed[1].median_seconds, timed[0].median_seconds);
}

TEST_F(FakeDriver, QkvWritesOnlyItsCacheRowInTimedCalls) {
  const KernelContract& qkv = *builtin_kernel("qkv");
  const auto honest = module("qkv", "hw_qkv(&a);", "{{{\"run_rows\", 1, 32, 0}}, 0}", "qkv");
  EXPECT_TRUE(target_.check(qkv, honest, {4, {}}).correct());
  const auto timed = target_.time_side_by_side(qkv, {honest, honest}, 2, 1);
  ASSERT_TRUE(timed[0].ok()) << timed[0].failure;
  // Also writes the next slot's row: outside the rows the contract lets it write.
  const auto spill =
      module("qkv_spill", "hw_qkv(&a); a.k_cache[((a.kv_slot + 1) % HW_TS) * HW_PS] ^= 1;",
             "{{{\"run_rows\", 1, 32, 0}}, 0}", "qkv");
  const auto caught = target_.check(qkv, spill, {4, {}});
  EXPECT_EQ(caught.status, targets::CheckOutcome::Status::kIncorrect);
  EXPECT_NE(caught.description.find("k_cache"), std::string::npos) << caught.description;
}

TEST_F(FakeDriver, AnArmThatStopsWorkingAfterTheCheckIsCaughtAsCheating) {
  // Right for the check's two calls, then it leaves the (poisoned) outputs alone.
  const auto honest = module("honest", kCorrect);
  const auto lazy = module("lazy", "if (calls <= 2) hw_attn_out(&a);");
  const auto timed = target_.time_side_by_side(attn_out(), {honest, lazy}, 4, 1);
  ASSERT_EQ(timed.size(), 2u);
  EXPECT_FALSE(timed[0].ok());
  EXPECT_TRUE(timed[0].cheated);
  EXPECT_NE(timed[0].failure.find("lazy"), std::string::npos) << timed[0].failure;
  EXPECT_NE(timed[0].failure.find("timed call"), std::string::npos) << timed[0].failure;

  auto device = target_.paired_device(attn_out(), honest, lazy, 2);
  ASSERT_TRUE(device.ok()) << device.error().message;
  nlohmann::json clock;
  for (int i = 0; i < 3; ++i) {
    EXPECT_GT(device.value()->run_once(statistics::Arm::kHead, &clock), 0.0);
    try {
      device.value()->run_once(statistics::Arm::kCandidate, &clock);
    } catch (const statistics::ArmDisqualified& e) {
      EXPECT_EQ(e.arm(), statistics::Arm::kCandidate);  // a verified call caught it at once
      return;
    }
  }
  try {
    device.value()->verify_arms();
    FAIL() << "the lazy arm passed verification";
  } catch (const statistics::ArmDisqualified& e) {
    EXPECT_EQ(e.arm(), statistics::Arm::kCandidate) << e.what();
  }
}

TEST_F(FakeDriver, EveryReadingWarmsUpBeforeItsTimedCall) {
  // 300 ms on its process's first call only: the warm-up takes it, no timed call does.
  const auto slow_first = module(
      "slow_first", "if (calls == 1) { timespec t{0, 300000000}; nanosleep(&t, nullptr); }\n" +
                        std::string(kCorrect));
  const auto timed = target_.time_side_by_side(attn_out(), {slow_first}, 3, 1);
  ASSERT_EQ(timed.size(), 1u);
  ASSERT_TRUE(timed[0].ok()) << timed[0].failure;
  for (double s : timed[0].seconds) EXPECT_LT(s, 0.15) << "a timed call was its process's first";
}

TEST_F(FakeDriver, APairsSecondReadingIsComparedWithItsFirst) {
  const auto a = module("a", kCorrect);
  const auto b = module("b", kCorrect);
  auto device = target_.paired_device(attn_out(), a, b, 3);
  ASSERT_TRUE(device.ok()) << device.error().message;
  nlohmann::json clock;
  for (int pair = 0; pair < 3; ++pair) {
    device.value()->begin_pair();
    device.value()->run_once(pair % 2 ? statistics::Arm::kHead : statistics::Arm::kCandidate,
                             &clock);
    device.value()->run_once(pair % 2 ? statistics::Arm::kCandidate : statistics::Arm::kHead,
                             &clock);
  }
  EXPECT_EQ(device.value()->verified_calls(statistics::Arm::kCandidate), 3);
  EXPECT_EQ(device.value()->accounting().value("compared_calls", -1), 3);
  EXPECT_NO_THROW(device.value()->verify_arms());
}

TEST_F(FakeDriver, AWrongCallIsFoundByThePairsComparisonWhicheverArmReadsFirst) {
  // Right for the check, then wrong on every timed call (the even calls of its session: each
  // reading is a warm-up and a timed call): finite, one element 512 (0x4400 in bf16), far from
  // any residual the kernel writes. Only about one unpaired call in eight is verified at once;
  // the pair's comparison finds every one.
  const auto honest = module("honest", kCorrect);
  const auto wrong =
      module("wrong", "hw_attn_out(&a); if (calls % 2 == 0) a.residual[0] = 0x4400;");
  for (const auto first : {statistics::Arm::kHead, statistics::Arm::kCandidate}) {
    auto device = target_.paired_device(attn_out(), honest, wrong, 4);
    ASSERT_TRUE(device.ok()) << device.error().message;
    nlohmann::json clock;
    device.value()->begin_pair();
    try {
      device.value()->run_once(first, &clock);
      device.value()->run_once(
          first == statistics::Arm::kHead ? statistics::Arm::kCandidate : statistics::Arm::kHead,
          &clock);
      FAIL() << "a wrong paired call passed";
    } catch (const statistics::ArmDisqualified& e) {
      EXPECT_EQ(e.arm(), statistics::Arm::kCandidate) << e.what();
      EXPECT_NE(std::string(e.what()).find("timed call"), std::string::npos) << e.what();
    }
  }
}

// The cuda target's own baseline and designs (at their defaults), emulated on host threads:
// checked against the contract and timed together in one session. attn_out always; qkv and ffn
// (minutes of emulation) with HEADWAY_CUDA_EMULATE_ALL=1.
class EmulatedKernels : public FakeDriver, public ::testing::WithParamInterface<std::string> {};

TEST_P(EmulatedKernels, BaselineAndDesignsAreCorrectAndTimedInOneSession) {
  const std::string name = GetParam();
  const char* all = std::getenv("HEADWAY_CUDA_EMULATE_ALL");
  if (name != "attn_out" && !(all && std::string(all) == "1"))
    GTEST_SKIP() << "HEADWAY_CUDA_EMULATE_ALL=1 runs it";
  const KernelContract& kernel = *builtin_kernel(name);
  std::vector<targets::Artifact> arms = {
      emulated("baseline", name, target_.baseline_source(kernel))};
  for (const auto& d : targets::designs_for(target_, *builtin_kernel(name)))
    arms.push_back(emulated(d.name, name, d.render(d.defaults())));
  if (HasFailure()) return;  // a module did not build
  for (const auto& arm : arms) {
    const auto c = target_.check(kernel, arm, {21, {}});
    EXPECT_TRUE(c.correct()) << arm.id << ": " << c.description;
  }
  const auto timed = target_.time_side_by_side(kernel, arms, 1, 3);
  for (size_t i = 0; i < arms.size(); ++i)
    EXPECT_TRUE(timed[i].ok()) << arms[i].id << ": " << timed[i].failure;
}

INSTANTIATE_TEST_SUITE_P(Cuda, EmulatedKernels, ::testing::Values("attn_out", "qkv", "ffn"));

TEST_F(FakeDriver, MeasuresTheCopyBandwidthTheFloorsUseAndTheReadBandwidth) {
  const auto facts = target_.measure_facts({0, 3, 1, {}});
  std::set<std::string> bandwidths;
  for (const auto& f : facts) {
    if (f.name != kCopyBandwidth && f.name != "read_bandwidth") continue;
    bandwidths.insert(f.name);
    EXPECT_GT(f.value, 0.0) << f.name;
    EXPECT_EQ(f.unit, "GB/s") << f.name;
  }
  EXPECT_EQ(bandwidths, (std::set<std::string>{kCopyBandwidth, "read_bandwidth"}));
}

// The L2 is emptied before each timed call by reading a buffer twice its size, not by writing
// one: a write leaves dirty lines that the timed call's own reads would evict, paying their
// write-back to memory inside the timed span (on an H100, about 4 us a call: docs/PERFORMANCE.md,
// "The cuda target"). The stand-in driver logs what the runner queues.
TEST_F(FakeDriver, TheL2IsEmptiedByAReadBeforeEveryTimedCall) {
  const fs::path log = dir_.path() / "driver.log";
  setenv("HEADWAY_FAKE_CUDA_LOG", log.c_str(), 1);
  const auto timed = target_.time_side_by_side(attn_out(), {module("a", kCorrect)}, 3, 1);
  unsetenv("HEADWAY_FAKE_CUDA_LOG");
  ASSERT_EQ(timed.size(), 1u);
  ASSERT_TRUE(timed[0].ok()) << timed[0].failure;

  std::vector<std::pair<std::string, size_t>> ops;
  std::ifstream in(log);
  std::string op;
  size_t bytes = 0;
  while (in >> op >> bytes) ops.emplace_back(op, bytes);
  constexpr size_t kFakeL2 = 1 << 20;  // fake_libcuda.cc's L2 size
  int timed_calls = 0;
  for (size_t i = 0; i + 2 < ops.size(); ++i) {
    if (ops[i].first == "memset") {
      EXPECT_LT(ops[i].second, kFakeL2) << "a write over the L2";
    }
    if (ops[i].first != "event") continue;
    // event, launch, event: a timed call, whose last operation before is the read of the flush
    ASSERT_EQ(ops[i + 1].first, "launch") << "op " << i + 1;
    ASSERT_EQ(ops[i + 2].first, "event") << "op " << i + 2;
    ASSERT_GT(i, 0u);
    EXPECT_EQ(ops[i - 1].first, "read") << "op " << i - 1;
    EXPECT_GE(ops[i - 1].second, 2 * kFakeL2);
    ++timed_calls;
    i += 2;
  }
  EXPECT_GE(timed_calls, 3);  // the 3 readings, after the session's untimed first rounds
}

}  // namespace
}  // namespace headway::cuda
#endif
