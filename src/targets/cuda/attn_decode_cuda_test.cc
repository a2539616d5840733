// The decode attention specs on the cuda target (kernels/specs/gemma4/attn_decode/): their cuda
// baselines and the flash-decoding designs (kernels/cuda/designs/attn_decode/ and attn_decode_f8/,
// include/headway/headway_cuda_attn.h) build with nvcc at every listed value, and built by the
// emulated toolchain they pass headway-cuda-runner's check against the spec's f64 reference at
// small shape sets (rings part filled down to one valid slot, and full caches) and are timed in
// one session; the merge with a partial dropped or a rescale left out fails the check. Real
// builds, the real runner on the stand-in driver, real subprocesses.
#include <gtest/gtest.h>
#include <stdlib.h>

#include <filesystem>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "common/embedded.h"
#include "common/file_io.h"
#include "kernels/kernel_spec.h"
#include "kernels/shared_buffers.h"
#include "kernels/spec_kernel.h"
#include "store/test_temp_dir.h"
#include "targets/cuda/cuda_target.h"
#include "targets/design_library.h"

#ifdef HEADWAY_FAKE_LIBCUDA
namespace headway::cuda {
namespace {

namespace fs = std::filesystem;

const fs::path kSpecDir = fs::path(HEADWAY_SOURCE_DIR) / "kernels/specs/gemma4/attn_decode";
constexpr const char* kSpecs[] = {"attn_decode", "attn_decode_f8"};

// Small shape sets: a ring of 64 slots that may be part filled (D = 32: four lanes of a warp
// hold a row), a ring of 2 (one valid slot half the time) and a full cache of 600 (D = 8), where
// a warp folds several steps of rows into its state (at the defaults too).
const char* kSmallShapes = R"([[shapes]]
name = "ring"
T = 64
N = 2
G = 2
D = 32
VMIN = 1

[[shapes]]
name = "pair"
T = 2
N = 2
G = 2
D = 16
VMIN = 1

[[shapes]]
name = "full"
T = 600
N = 3
G = 2
D = 8
VMIN = 600

)";

// The spec `name` copied into dir with the small shape sets: one contract per shape set.
std::vector<std::unique_ptr<SpecKernel>> small_kernels(const std::string& name,
                                                       const fs::path& dir) {
  fs::create_directories(dir);
  for (const auto& entry : fs::directory_iterator(kSpecDir))
    fs::copy_file(entry.path(), dir / entry.path().filename());
  const fs::path toml = dir / (name + ".toml");
  std::string text = read_file(toml).value();
  const size_t first = text.find("[[shapes]]"), args = text.find("[[arguments]]");
  text.replace(first, args - first, kSmallShapes);
  write_file(toml, text);
  auto spec = load_kernel_spec(toml);
  EXPECT_TRUE(spec) << spec.error().message;
  if (!spec) return {};
  auto kernels = spec_kernels(std::make_shared<KernelSpec>(spec.value()), dir / "ref");
  EXPECT_TRUE(kernels) << kernels.error().message;
  return kernels ? std::move(kernels).value() : std::vector<std::unique_ptr<SpecKernel>>{};
}

// The first seed whose first call's number of valid slots satisfies `want`.
uint64_t seed_with(const SpecKernel& kernel, const std::function<bool(int64_t, int64_t)>& want) {
  for (uint64_t seed = 1;; ++seed) {
    SharedBuffers b(kernel.regions());
    kernel.generate(seed, b);
    if (want(b.as<int32_t>("valid")[0], kernel.shape_set().dims[0])) return seed;
  }
}

// The calls each artifact is checked on: (contract, seed, what).
struct Call {
  const SpecKernel* kernel;
  uint64_t seed;
  std::string what;
};
std::vector<Call> calls_of(const std::vector<std::unique_ptr<SpecKernel>>& k) {
  auto few = [](int64_t valid, int64_t) { return valid <= 5; };
  auto full = [](int64_t valid, int64_t t) { return valid == t; };
  auto one = [](int64_t valid, int64_t) { return valid == 1; };
  return {{k[0].get(), seed_with(*k[0], few), "ring, at most 5 of 64 valid"},
          {k[0].get(), seed_with(*k[0], full), "ring, full"},
          {k[1].get(), seed_with(*k[1], one), "pair, one valid"},
          {k[2].get(), 7, "full cache of 600"}};
}

// The design at small steps: 8 splits of 4 warps of 2 rows, so that at 64 valid slots every
// split and every warp of a block holds rows.
targets::Params small_steps(const targets::Design& design) {
  targets::Params p = design.defaults();
  p["P_SPLITS"] = 8;
  p["P_WARPS"] = 4;
  p["P_ROWS"] = 2;
  return p;
}

class CudaAttnDecode : public ::testing::Test {
 protected:
  void SetUp() override { unsetenv("HEADWAY_CUDA_DRIVER"); }
  CudaTarget emulated_{std::string(kEmulatedSpec)};
  store::TestTempDir tmp_;
};

TEST_F(CudaAttnDecode, NvccBuildsTheBaselinesAndEveryDesignValue) {
  CudaTarget t("@sm_90");
  if (!t.identity().found) GTEST_SKIP() << "no nvcc: " << t.identity().error;
  for (const char* name : kSpecs) {
    auto kernel = load_spec_kernel(kSpecDir / (std::string(name) + ".toml"), tmp_.path() / "ref");
    ASSERT_TRUE(kernel) << kernel.error().message;
    auto build = [&](const std::string& label, const std::string& source) {
      const auto b = t.build(source, tmp_.path() / "nvcc");
      EXPECT_TRUE(b.built()) << label << ":\n" << b.diagnostics;
    };
    build(std::string(name) + " baseline", t.baseline_source(*kernel.value()));
    const auto& designs = targets::designs_for(t, *kernel.value());
    ASSERT_EQ(designs.size(), 1u) << name;
    for (const auto& d : designs) {
      build(d.name, d.render(d.defaults()));
      for (const auto& values : d.neighbours(d.defaults())) {
        std::string label = std::string(name) + "/" + d.name;
        for (const auto& [p, v] : values) label += " " + p + "=" + std::to_string(v);
        build(label, d.render(values));
      }
    }
  }
}

TEST_F(CudaAttnDecode, BaselineAndDesignsPassTheCheckOnPartFilledAndFullCachesAndAreTimed) {
  ASSERT_TRUE(emulated_.identity().found) << emulated_.identity().error;
  for (const char* name : kSpecs) {
    const auto kernels = small_kernels(name, tmp_.path() / name);
    ASSERT_EQ(kernels.size(), 3u) << name;
    std::vector<targets::Artifact> arms;
    auto build = [&](const std::string& label, const std::string& source) {
      auto b = emulated_.build(source, tmp_.path() / "emulated");
      EXPECT_TRUE(b.built()) << name << " " << label << ":\n" << b.diagnostics;
      b.artifact.id = label;
      arms.push_back(b.artifact);
    };
    build("baseline", emulated_.baseline_source(*kernels[0]));
    const auto& designs = targets::designs_for(emulated_, *kernels[0]);
    ASSERT_EQ(designs.size(), 1u) << name;
    const targets::Design& design = designs[0];
    build(design.name, design.render(design.defaults()));
    build(design.name + " small steps", design.render(small_steps(design)));
    if (HasFailure()) return;
    for (const auto& arm : arms) {
      for (const Call& call : calls_of(kernels)) {
        const auto c = emulated_.check(*call.kernel, arm, {call.seed, {}});
        EXPECT_TRUE(c.correct()) << name << " " << arm.id << ", " << call.what << ": "
                                 << c.description;
      }
    }
    // One session holding every arm: the runner's serve mode on a spec kernel.
    const auto timed = emulated_.time_side_by_side(*kernels[0], arms, 2, 3);
    for (size_t i = 0; i < arms.size(); ++i)
      EXPECT_TRUE(timed[i].ok()) << name << " " << arms[i].id << ": " << timed[i].failure;
  }
}

// The bf16 design at small steps after a copy of the machinery with `from` replaced by `to`
// (every occurrence): the copy's include guard keeps the shipped header out.
std::string planted(const targets::Design& design, const std::string& from, const std::string& to) {
  std::string header(embedded_file("include/headway/headway_cuda_attn.h"));
  size_t at = header.find(from);
  EXPECT_NE(at, std::string::npos) << from;
  for (; at != std::string::npos; at = header.find(from, at + to.size()))
    header.replace(at, from.size(), to);
  return header + design.render(small_steps(design));
}

TEST_F(CudaAttnDecode, AMergeThatDropsAPartialOrLeavesOutARescaleFails) {
  ASSERT_TRUE(emulated_.identity().found) << emulated_.identity().error;
  const auto kernels = small_kernels("attn_decode", tmp_.path() / "attn_decode");
  ASSERT_EQ(kernels.size(), 3u);
  const auto& designs = targets::designs_for(emulated_, *kernels[0]);
  ASSERT_EQ(designs.size(), 1u);
  struct Bug {
    std::string what, from, to;
  };
  const std::string split_weight = "hw_attn_weight(m[s], l[s], top)";
  const std::vector<Bug> bugs = {
      {"none", split_weight, split_weight},
      {"the first split's partial dropped", split_weight,
       "(s > 0 ? hw_attn_weight(m[s], l[s], top) : 0.0f)"},
      {"the last warp's state dropped", "for (int w = 0; w < NWARPS; ++w) {",
       "for (int w = 0; w < NWARPS - 1; ++w) {"},
      {"partials merged without their rescale", "return l > 0.0f ? expf(m - top) : 0.0f;",
       "return l > 0.0f ? 1.0f : 0.0f;"},
      {"the accumulator not rescaled", "st.acc[g][e] *= shrink;", ";"},
  };
  for (const Bug& bug : bugs) {
    const auto built =
        emulated_.build(planted(designs[0], bug.from, bug.to), tmp_.path() / "emulated");
    ASSERT_TRUE(built.built()) << bug.what << ":\n" << built.diagnostics;
    int wrong = 0;
    for (const Call& call : calls_of(kernels)) {
      const auto c = emulated_.check(*call.kernel, built.artifact, {call.seed, {}});
      if (bug.what == "none") {
        EXPECT_TRUE(c.correct()) << call.what << ": " << c.description;
      }
      wrong += c.status == targets::CheckOutcome::Status::kIncorrect;
    }
    if (bug.what != "none") {
      EXPECT_GE(wrong, 1) << bug.what << " passed every check";
    }
  }
}

}  // namespace
}  // namespace headway::cuda
#endif
