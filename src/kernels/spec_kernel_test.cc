#include "kernels/spec_kernel.h"

#include <gtest/gtest.h>

#include <cmath>
#include <cstdlib>
#include <filesystem>
#include <map>
#include <memory>
#include <thread>

#include "common/file_io.h"
#include "kernels/numerics.h"
#include "kernels/spec_self_check.h"
#include "kernels/verify.h"
#include "store/test_temp_dir.h"

namespace headway {
namespace {

namespace fs = std::filesystem;

const fs::path kExampleSpecs = fs::path(HEADWAY_SOURCE_DIR) / "kernels/specs";

class SpecKernelTest : public ::testing::Test {
 protected:
  std::shared_ptr<KernelSpec> spec(const std::string& name) {
    auto loaded = load_kernel_spec(kExampleSpecs / name / (name + ".toml"));
    EXPECT_TRUE(loaded) << loaded.error().message;
    return std::make_shared<KernelSpec>(loaded.value());
  }
  std::unique_ptr<SpecKernel> kernel(std::shared_ptr<const KernelSpec> s, size_t shape = 0) {
    auto made = spec_kernels(std::move(s), cache_.path());
    EXPECT_TRUE(made) << made.error().message;
    return std::move(made.value()[shape]);
  }
  store::TestTempDir cache_;
};

TEST_F(SpecKernelTest, RegionsFollowTheArgumentsThenTheDims) {
  auto k = kernel(spec("rmsnorm"), 1);  // the "small" shape set: N = 1024
  const auto regions = k->regions();
  ASSERT_EQ(regions.size(), 4u);
  EXPECT_EQ(regions[0].name, "x");
  EXPECT_EQ(regions[0].bytes, 2048u);
  EXPECT_EQ(regions[1].role, RegionRole::kInput);  // a weight is read-only
  EXPECT_EQ(regions[2].role, RegionRole::kOutput);
  EXPECT_EQ(regions[3].name, "dims");
  EXPECT_EQ(k->bytes_to_move(), 3u * 2048u);  // the dims are headway's, not the kernel's
  EXPECT_EQ(k->weight_format(), KernelContract::WeightFormat::kNone);
  SharedBuffers b(regions);
  k->generate(7, b);
  EXPECT_EQ(b.as<int64_t>("dims")[0], 1024);
}

TEST_F(SpecKernelTest, TheSameSeedDrawsTheSameInputsAndTheDrawIsTheSpecs) {
  auto k = kernel(spec("rmsnorm"), 1);
  SharedBuffers a(k->regions()), b(k->regions()), c(k->regions());
  k->generate(11, a);
  k->generate(11, b);
  k->generate(12, c);
  EXPECT_TRUE(std::equal(a.bytes(0).begin(), a.bytes(0).end(), b.bytes(0).begin()));
  EXPECT_FALSE(std::equal(a.bytes(0).begin(), a.bytes(0).end(), c.bytes(0).begin()));
  for (const bf16 w : a.as<bf16>("weight")) {  // uniform in [0.5, 1.5)
    EXPECT_GE(bf16_to_float(w), 0.5f);
    EXPECT_LE(bf16_to_float(w), 1.5f);
  }
}

// `uniform = [LO, HI]` on an integer type draws every integer from LO to HI, both ends included:
// signed int8 weights over their whole range, with no generator.
TEST_F(SpecKernelTest, AnIntegerUniformDrawGivesEveryIntegerInItsRangeAndNoOther) {
  store::TestTempDir dir;
  write_file(dir.path() / "ref.c",
             "#include \"headway_reference.h\"\n"
             "void headway_reference(double* const* a, const int64_t* d) {\n"
             "  for (int64_t i = 0; i < d[0]; ++i) a[2][i] = a[0][i] * a[1][i];\n}\n");
  write_file(dir.path() / "ints.toml", R"(name = "ints"
dims = ["N"]
reference = "ref.c"
tolerance = { atol = 0.0, rtol = 0.0 }

[[shapes]]
name = "one"
N = 4096

[[arguments]]
name = "w"
role = "weight"
type = "int8"
shape = ["N"]
draw = { uniform = [-128, 127] }

[[arguments]]
name = "idx"
role = "input"
type = "int32"
shape = ["N"]
draw = { uniform = [-3, 3] }

[[arguments]]
name = "out"
role = "output"
type = "f32"
shape = ["N"]
)");
  auto loaded = load_kernel_spec(dir.path() / "ints.toml");
  ASSERT_TRUE(loaded) << loaded.error().message;
  auto k = kernel(std::make_shared<KernelSpec>(loaded.value()));
  SharedBuffers b(k->regions());
  k->generate(21, b);
  std::map<int, int> w_counts, idx_counts;
  for (const int8_t v : b.as<int8_t>("w")) ++w_counts[v];
  for (const int32_t v : b.as<int32_t>("idx")) ++idx_counts[v];
  EXPECT_EQ(w_counts.begin()->first, -128);
  EXPECT_EQ(w_counts.rbegin()->first, 127);
  EXPECT_GT(w_counts.size(), 240u);  // 4096 draws of 256 values leave hardly any out
  ASSERT_EQ(idx_counts.size(), 7u);
  EXPECT_EQ(idx_counts.begin()->first, -3);
  EXPECT_EQ(idx_counts.rbegin()->first, 3);
  for (const auto& [v, count] : idx_counts) {  // about 585 each
    EXPECT_GT(count, 450) << v;
    EXPECT_LT(count, 720) << v;
  }
}

TEST_F(SpecKernelTest, TheReferenceIsTheSpecsCSourceRunOnTheDecodedInputs) {
  auto k = kernel(spec("rmsnorm"), 1);
  SharedBuffers b(k->regions());
  k->generate(3, b);
  const auto expected = k->reference(b);
  ASSERT_EQ(expected.size(), 1u);
  EXPECT_EQ(expected[0].region, 2u);
  ASSERT_EQ(expected[0].values.size(), 1024u);
  double sum_sq = 0;
  for (const bf16 v : b.as<bf16>("x")) sum_sq += double{bf16_to_float(v)} * bf16_to_float(v);
  const double inv = 1.0 / std::sqrt(sum_sq / 1024 + 1e-6);
  EXPECT_DOUBLE_EQ(expected[0].values[5], bf16_to_float(b.as<bf16>("x")[5]) * inv *
                                              bf16_to_float(b.as<bf16>("weight")[5]));
}

// Verification computes references on several threads at once, each with a scratch of its own:
// every one must equal the reference computed alone, cache rows included.
TEST_F(SpecKernelTest, ReferencesComputedAtOnceOnThreadsEqualEachAlone) {
  auto k = kernel(spec("kv_append"));
  constexpr int kThreads = 4;
  std::vector<std::unique_ptr<SharedBuffers>> inputs;
  std::vector<std::vector<ExpectedOutput>> alone;
  for (int t = 0; t < kThreads; ++t) {
    inputs.push_back(std::make_unique<SharedBuffers>(k->regions()));
    k->generate(static_cast<uint64_t>(11 + t), *inputs.back());
    alone.push_back(k->reference(*inputs.back()));
  }
  std::vector<std::vector<ExpectedOutput>> together(kThreads);
  {
    std::vector<std::jthread> threads;
    for (int t = 0; t < kThreads; ++t) {
      threads.emplace_back([&, t] {
        for (int round = 0; round < 20; ++round)
          together[static_cast<size_t>(t)] = k->reference(*inputs[static_cast<size_t>(t)]);
      });
    }
  }
  for (int t = 0; t < kThreads; ++t) {
    SCOPED_TRACE(t);
    const auto& a = alone[static_cast<size_t>(t)];
    const auto& b = together[static_cast<size_t>(t)];
    ASSERT_EQ(a.size(), b.size());
    for (size_t i = 0; i < a.size(); ++i) {
      EXPECT_EQ(a[i].region, b[i].region);
      EXPECT_EQ(a[i].first_element, b[i].first_element);
      EXPECT_EQ(a[i].values, b[i].values);
    }
  }
}

TEST_F(SpecKernelTest, ACacheIsJudgedOnTheRowsTheReferenceChangedAndNoOthers) {
  auto k = kernel(spec("kv_append"));
  SharedBuffers b(k->regions());
  k->generate(5, b);
  const int32_t slot = b.as<int32_t>("slot")[0];
  const auto expected = k->reference(b);
  ASSERT_EQ(expected.size(), 1u);
  EXPECT_EQ(expected[0].first_element, static_cast<size_t>(slot) * 256);
  EXPECT_EQ(expected[0].values.size(), 256u);
  EXPECT_EQ(k->bytes_to_move(), 512u + 4u + 512u);  // k, the slot, one cache row
  const Snapshot before = take_snapshot(b);
  poison_outputs(b, expected);
  auto cache = b.as<bf16>("cache");
  auto kin = b.as<bf16>("k");
  std::copy(kin.begin(), kin.end(), cache.begin() + slot * 256);
  EXPECT_FALSE(verify(*k, b, before, expected));
  cache[((slot + 1) % 4096) * 256] ^= 1;  // another row
  const auto v = verify(*k, b, before, expected);
  ASSERT_TRUE(v);
  EXPECT_EQ(v->kind, Violation::Kind::kWroteOutsideRows);
}

TEST_F(SpecKernelTest, ACacheDecodedOnceServesTheNextCallsAsTheirBytesSay) {
  // A scratch keeps the decoded cache between calls: the row one call wrote is put back before
  // the next, and cache bytes changed since are decoded afresh.
  auto k = kernel(spec("kv_append"));
  SharedBuffers b(k->regions());
  k->generate(5, b);
  auto slot = b.as<int32_t>("slot");
  const int32_t first = slot[0];
  ASSERT_EQ(k->reference(b).size(), 1u);
  slot[0] = (first + 1) % 4096;
  auto expected = k->reference(b);
  ASSERT_EQ(expected.size(), 1u);  // not the first call's row as well
  EXPECT_EQ(expected[0].first_element, static_cast<size_t>(slot[0]) * 256);
  // The cache row now holds k already: the reference changes nothing, which only a fresh decode
  // of the cache's bytes can tell.
  auto cache = b.as<bf16>("cache");
  auto kin = b.as<bf16>("k");
  std::copy(kin.begin(), kin.end(), cache.begin() + slot[0] * 256);
  EXPECT_TRUE(k->reference(b).empty());
  slot[0] = first;
  expected = k->reference(b);
  ASSERT_EQ(expected.size(), 1u);
  EXPECT_EQ(expected[0].first_element, static_cast<size_t>(first) * 256);
}

TEST_F(SpecKernelTest, F8WeightsMakeADecodeFormatAndF32OutputsAreJudgedAsF32) {
  auto k = kernel(spec("gemv_f8"));
  EXPECT_EQ(k->weight_format(), KernelContract::WeightFormat::kF8e4m3);
  EXPECT_EQ(k->quantized_weight_bytes(), 2048u * 3840u);
  EXPECT_TRUE(self_check(*k, 1)) << self_check(*k, 1).error().message;
}

TEST_F(SpecKernelTest, AGeneratorRewritesInputsAfterTheDrawsDeterministically) {
  auto k = kernel(spec("gemv_f8"));
  SharedBuffers a(k->regions()), b(k->regions());
  k->generate(9, a);
  k->generate(9, b);
  EXPECT_TRUE(std::equal(a.bytes(2).begin(), a.bytes(2).end(), b.bytes(2).begin()));
  // Each row's scale is u / (sqrt(K) rms(w row) rms(x)), u in [0.5, 1.5), as bf16.
  const auto x = a.as<bf16>("x");
  double x_sq = 0;
  for (const bf16 v : x) x_sq += double{bf16_to_float(v)} * bf16_to_float(v);
  const double x_rms = std::sqrt(x_sq / 3840);
  const auto w = a.as<uint8_t>("w");
  for (size_t r : {size_t{0}, size_t{777}, size_t{2047}}) {
    double w_sq = 0;
    for (size_t c = 0; c < 3840; ++c) w_sq += std::pow(f8e4m3_to_float(w[r * 3840 + c]), 2);
    const double u =
        bf16_to_float(a.as<bf16>("scale")[r]) * std::sqrt(3840.0) * std::sqrt(w_sq / 3840) * x_rms;
    EXPECT_GT(u, 0.49) << r;
    EXPECT_LT(u, 1.51) << r;
  }
  // The outputs come out about unit size.
  const auto expected = k->reference(a);
  double y_sq = 0;
  for (const double v : expected[0].values) y_sq += v * v;
  const double y_rms = std::sqrt(y_sq / static_cast<double>(expected[0].values.size()));
  EXPECT_GT(y_rms, 0.5);
  EXPECT_LT(y_rms, 2.0);

  store::TestTempDir dir;
  write_file(dir.path() / "gen.c", "void not_the_generator(void) {}\n");
  auto missing = build_spec_function(dir.path() / "gen.c", "headway_generate", cache_.path());
  ASSERT_FALSE(missing);
  EXPECT_NE(missing.error().message.find("defines no 'headway_generate'"), std::string::npos);
}

TEST_F(SpecKernelTest, SelfCheckRefusesATolerancePastEitherEdge) {
  auto loose = spec("rmsnorm");
  loose->tolerance = {1e9, 0};
  auto judged = self_check(*kernel(loose), 1);
  ASSERT_FALSE(judged);
  EXPECT_NE(judged.error().message.find("a wrong output passes: `out`[0]"), std::string::npos)
      << judged.error().message;
  auto tight = spec("rmsnorm");
  tight->tolerance = {0, 0};  // bf16 outputs cannot hold f64 values exactly
  judged = self_check(*kernel(tight), 1);
  ASSERT_FALSE(judged);
  EXPECT_NE(judged.error().message.find("tighter than the output type holds"), std::string::npos)
      << judged.error().message;
  EXPECT_TRUE(self_check(*kernel(spec("rmsnorm")), 1));
}

TEST_F(SpecKernelTest, AReferenceThatDoesNotBuildOrLacksItsEntryIsAnError) {
  store::TestTempDir dir;
  write_file(dir.path() / "broken.c",
             "void headway_reference(double* const* a, const long* d) { oops }\n");
  auto built = build_spec_function(dir.path() / "broken.c", "headway_reference", cache_.path());
  ASSERT_FALSE(built);
  EXPECT_EQ(built.error().code, ErrorCode::kInvalidInput);
  EXPECT_NE(built.error().message.find("the reference does not build"), std::string::npos);
  EXPECT_NE(built.error().message.find("oops"), std::string::npos) << built.error().message;
  write_file(dir.path() / "other.cc", "extern \"C\" void something_else() {}\n");
  built = build_spec_function(dir.path() / "other.cc", "headway_reference", cache_.path());
  ASSERT_FALSE(built);
  EXPECT_NE(built.error().message.find("defines no 'headway_reference'"), std::string::npos)
      << built.error().message;
}

TEST_F(SpecKernelTest, LoadingMakesTheKernelAtTheNamedShapeSetAndBuildsNothing) {
  // A compiler that does not exist: loading must not need one.
  const char* was = std::getenv("CC");
  const std::string old = was ? was : "";
  setenv("CC", "/nonexistent/cc", 1);
  struct Restore {
    bool had;
    std::string value;
    ~Restore() { had ? setenv("CC", value.c_str(), 1) : unsetenv("CC"); }
  } restore{was != nullptr, old};
  auto loaded = load_spec_kernel(kExampleSpecs / "rmsnorm/rmsnorm.toml", cache_.path(), "small",
                                 "workspace kernel rmsnorm");
  ASSERT_TRUE(loaded) << loaded.error().message;
  EXPECT_EQ(loaded.value()->name(), "rmsnorm");
  EXPECT_EQ(loaded.value()->shape_set_name(), "small");
  EXPECT_EQ(loaded.value()->regions()[0].bytes, 2048u);
  ASSERT_EQ(loaded.value()->shape_sets().size(), 2u);
  EXPECT_EQ(loaded.value()->shape_sets()[1]->shape_set_name(), "gemma4");
  // The reference is built when called for: here it cannot be, and says why, led by the label.
  const auto built = loaded.value()->build_reference();
  ASSERT_FALSE(built);
  EXPECT_EQ(built.error().code, ErrorCode::kEnvironment);
  EXPECT_EQ(built.error().message.rfind("workspace kernel rmsnorm: ", 0), 0u)
      << built.error().message;
  EXPECT_NE(built.error().message.find("/nonexistent/cc"), std::string::npos);
  SharedBuffers buffers(loaded.value()->regions());
  loaded.value()->generate(1, buffers);  // its draws need no build: it has no generator
  EXPECT_THROW(loaded.value()->reference(buffers), Failure);
  auto missing = load_spec_kernel(kExampleSpecs / "rmsnorm/rmsnorm.toml", cache_.path(), "huge");
  ASSERT_FALSE(missing);
  EXPECT_NE(missing.error().message.find("no shape set 'huge' (it has: gemma4, small)"),
            std::string::npos);
}

// A copy of rmsnorm with a check-only shape set "tiny" (N = 64) first: the kernel is known by its
// first timed set, its family holds every set, and the timed ones leave "tiny" out.
TEST_F(SpecKernelTest, AKernelIsKnownByItsFirstTimedShapeSetAndTimesNoCheckOnlyOne) {
  store::TestTempDir dir;
  for (const auto& entry : fs::directory_iterator(kExampleSpecs / "rmsnorm"))
    fs::copy_file(entry.path(), dir.path() / entry.path().filename());
  std::string text = read_file(dir.path() / "rmsnorm.toml").value();
  text.insert(text.find("[[shapes]]"),
              "[[shapes]]\nname = \"tiny\"\ncheck_only = true\nN = 64\n\n");
  write_file(dir.path() / "rmsnorm.toml", text);
  const auto names = [](const std::vector<const KernelContract*>& sets) {
    std::vector<std::string> out;
    for (const KernelContract* at : sets) out.push_back(at->shape_set_name());
    return out;
  };
  auto loaded = load_spec_kernel(dir.path() / "rmsnorm.toml", cache_.path());
  ASSERT_TRUE(loaded) << loaded.error().message;
  const KernelContract& kernel = *loaded.value();
  EXPECT_EQ(kernel.shape_set_name(), "gemma4");
  EXPECT_FALSE(kernel.check_only());
  EXPECT_EQ(names(kernel.shape_sets()), (std::vector<std::string>{"gemma4", "tiny", "small"}));
  EXPECT_TRUE(kernel.shape_sets()[1]->check_only());
  EXPECT_EQ(names(timed_shape_sets(kernel)), (std::vector<std::string>{"gemma4", "small"}));

  // Asked for by name (a check of that set alone), the check-only set is the contract.
  auto tiny = load_spec_kernel(dir.path() / "rmsnorm.toml", cache_.path(), "tiny");
  ASSERT_TRUE(tiny) << tiny.error().message;
  EXPECT_TRUE(tiny.value()->check_only());
  EXPECT_EQ(tiny.value()->regions()[0].bytes, 128u);
  EXPECT_EQ(names(timed_shape_sets(*tiny.value())), (std::vector<std::string>{"gemma4", "small"}));
  // A contract made alone (spec_kernels) is its own family: one set, timed.
  auto made = spec_kernels(spec("rmsnorm"), cache_.path());
  ASSERT_TRUE(made) << made.error().message;
  EXPECT_EQ(timed_shape_sets(*made.value()[1]).size(), 1u);
}

TEST_F(SpecKernelTest, ALoadedSpecsReferenceIsBuiltWhenFirstCalledFor) {
  auto loaded = load_spec_kernel(kExampleSpecs / "rmsnorm/rmsnorm.toml", cache_.path(), "small");
  ASSERT_TRUE(loaded) << loaded.error().message;
  EXPECT_FALSE(std::filesystem::exists(cache_.path() / "references"));
  const auto built = loaded.value()->build_reference();
  ASSERT_TRUE(built) << built.error().message;
  EXPECT_TRUE(std::filesystem::exists(cache_.path() / "references"));
  SharedBuffers buffers(loaded.value()->regions());
  loaded.value()->generate(7, buffers);
  EXPECT_FALSE(loaded.value()->reference(buffers).empty());
}

}  // namespace
}  // namespace headway
