// The Gemma-4 decode attention specs (kernels/specs/gemma4/attn_decode/): their references against
// a plain softmax written here, the slots past `valid`, the f8 scales, and their cpu baselines
// with planted bugs under `kernel check`'s procedure. Small shape sets keep each run short.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <filesystem>
#include <memory>
#include <string>
#include <vector>

#include "common/file_io.h"
#include "kernels/kernel_spec.h"
#include "kernels/numerics.h"
#include "kernels/shared_buffers.h"
#include "kernels/spec_kernel.h"
#include "knowledge/spec_check.h"
#include "store/test_temp_dir.h"
#include "targets/registry/registry.h"

namespace headway {
namespace {

namespace fs = std::filesystem;

const fs::path kDir = fs::path(HEADWAY_SOURCE_DIR) / "kernels/specs/gemma4/attn_decode";

// Small shape sets in the spec's dims order (T, N, G, D, VMIN): a ring that may be part filled,
// and a full cache of another shape.
const std::vector<ShapeSet> kSmall = {{"ring", {24, 2, 2, 16, 1}, 0}, {"full", {8, 3, 2, 8, 8}, 0}};

// The same shape sets as TOML, for a copy of a spec on disk.
const char* kSmallToml = R"([[shapes]]
name = "ring"
T = 24
N = 2
G = 2
D = 16
VMIN = 1

[[shapes]]
name = "full"
T = 8
N = 3
G = 2
D = 8
VMIN = 8

)";

std::shared_ptr<KernelSpec> load(const std::string& name) {
  auto loaded = load_kernel_spec(kDir / (name + ".toml"));
  EXPECT_TRUE(loaded) << loaded.error().message;
  return std::make_shared<KernelSpec>(loaded.value());
}

// Element (t, n, i) of a cache [T][N][D], decoded (f8: times its scale [T][N]).
struct Cache {
  const SharedBuffers* b;
  std::string name, scale;  // scale empty: bf16
  int64_t n_groups, d;
  double at(int64_t t, int64_t n, int64_t i) const {
    const int64_t e = (t * n_groups + n) * d + i;
    if (scale.empty()) return bf16_to_float(b->as<bf16>(name)[static_cast<size_t>(e)]);
    return double{f8e4m3_to_float(b->as<uint8_t>(name)[static_cast<size_t>(e)])} *
           b->as<float>(scale)[static_cast<size_t>(t * n_groups + n)];
  }
};

// attn by the textbook: every score of the valid slots, their maximum, the normalized
// exponentials, the weighted sum; in f64, unrounded.
std::vector<double> plain_attention(const SharedBuffers& b, const std::vector<int64_t>& dims,
                                    const Cache& k, const Cache& v) {
  const int64_t n_groups = dims[1], g_heads = dims[2], d = dims[3];
  const int64_t valid = b.as<int32_t>("valid")[0];
  const auto q = b.as<bf16>("q");
  std::vector<double> out(static_cast<size_t>(n_groups * g_heads * d));
  for (int64_t n = 0; n < n_groups; ++n) {
    for (int64_t g = 0; g < g_heads; ++g) {
      const int64_t head = n * g_heads + g;
      std::vector<double> score(static_cast<size_t>(valid));
      double maximum = -INFINITY;
      for (int64_t t = 0; t < valid; ++t) {
        double s = 0;
        for (int64_t i = 0; i < d; ++i)
          s += double{bf16_to_float(q[static_cast<size_t>(head * d + i)])} * k.at(t, n, i);
        score[static_cast<size_t>(t)] = s / std::sqrt(static_cast<double>(d));
        maximum = std::max(maximum, score[static_cast<size_t>(t)]);
      }
      double total = 0;
      for (double& s : score) total += (s = std::exp(s - maximum));
      for (int64_t i = 0; i < d; ++i) {
        double sum = 0;
        for (int64_t t = 0; t < valid; ++t) sum += score[static_cast<size_t>(t)] * v.at(t, n, i);
        out[static_cast<size_t>(head * d + i)] = sum / total;
      }
    }
  }
  return out;
}

// The reference's attn (bf16 values) against the plain computation rounded to bf16: the two sum
// in different orders, so a value at a rounding boundary may land one bf16 step (2^-8) apart.
void expect_agrees(const std::vector<double>& reference, const std::vector<double>& plain,
                   const std::string& where) {
  ASSERT_EQ(reference.size(), plain.size());
  double sum_sq = 0;
  for (size_t i = 0; i < plain.size(); ++i) {
    const double rounded = bf16_to_float(double_to_bf16(plain[i]));
    EXPECT_LE(std::fabs(reference[i] - rounded), std::ldexp(std::fabs(rounded), -8))
        << where << " element " << i << ": " << reference[i] << " vs " << plain[i];
    sum_sq += plain[i] * plain[i];
  }
  // About unit size: a kernel returning zeros or its input's scale fails.
  EXPECT_GT(std::sqrt(sum_sq / static_cast<double>(plain.size())), 0.1) << where;
}

// Three timed shape sets whose every slot is valid (the bytes to move are derived so), and the
// part-filled ring checked only.
TEST(AttnDecodeSpec, TheShippedSpecsHaveTheGemma4ShapeSetsAndBytesToMove) {
  store::TestTempDir cache;
  for (const std::string name : {"attn_decode", "attn_decode_f8"}) {
    auto spec = load(name);
    ASSERT_EQ(spec->shapes.size(), 4u);
    const std::vector<std::string> names = {"sliding", "global4k", "global32k", "filling"};
    const std::vector<int64_t> slots = {1024, 4096, 32768, 1024}, fewest = {1024, 4096, 32768, 1};
    for (size_t s = 0; s < 4; ++s) {
      EXPECT_EQ(spec->shapes[s].name, names[s]);
      EXPECT_EQ(spec->shapes[s].dims, (std::vector<int64_t>{slots[s], 8, 2, 256, fewest[s]}));
      EXPECT_EQ(spec->shapes[s].check_only, names[s] == "filling") << names[s];
    }
    EXPECT_EQ(spec->first_timed_shape(), 0u);
    auto made = spec_kernels(spec, cache.path());
    ASSERT_TRUE(made) << made.error().message;
    const uint64_t element = name == "attn_decode" ? 2 : 1;
    const uint64_t scales = name == "attn_decode" ? 0 : 2 * 32768 * 8 * 4;
    // q, valid, K and V read once, attn written once.
    EXPECT_EQ(made.value()[2]->bytes_to_move(),
              4096 * 2 + 4 + 2 * 32768 * 8 * 256 * element + scales + 4096 * 2)
        << name;
  }
}

// The timed sliding set is the full ring at every seed (what a sliding layer reads past its
// window, and what its floor assumes); the check-only filling set draws part-filled rings too.
TEST(AttnDecodeSpec, SlidingIsTheFullRingAndFillingDrawsPartFilledRings) {
  store::TestTempDir cache;
  auto made = spec_kernels(load("attn_decode"), cache.path());
  ASSERT_TRUE(made) << made.error().message;
  const SpecKernel& sliding = *made.value()[0];
  const SpecKernel& filling = *made.value()[3];
  ASSERT_EQ(sliding.shape_set().name, "sliding");
  ASSERT_EQ(filling.shape_set().name, "filling");
  EXPECT_EQ(sliding.bytes_to_move(), filling.bytes_to_move());
  int part = 0;
  SharedBuffers b(sliding.regions());
  for (uint64_t seed = 1; seed <= 16; ++seed) {
    sliding.generate(seed, b);
    EXPECT_EQ(b.as<int32_t>("valid")[0], 1024) << "seed " << seed;
    filling.generate(seed, b);
    const int32_t valid = b.as<int32_t>("valid")[0];
    EXPECT_GE(valid, 1);
    EXPECT_LE(valid, 1024);
    part += valid < 1024;
  }
  EXPECT_GT(part, 0);
  EXPECT_LT(part, 16);
}

class AttnDecodeReference : public ::testing::Test {
 protected:
  std::vector<std::unique_ptr<SpecKernel>> kernels(const std::string& name) {
    auto spec = load(name);
    spec->shapes = kSmall;
    auto made = spec_kernels(spec, cache_.path());
    EXPECT_TRUE(made) << made.error().message;
    return std::move(made.value());
  }
  // A seed whose input set at the ring shape holds fewer valid slots than the ring.
  uint64_t part_filled_seed(const SpecKernel& k) {
    for (uint64_t seed = 1;; ++seed) {
      SharedBuffers b(k.regions());
      k.generate(seed, b);
      if (b.as<int32_t>("valid")[0] < k.shape_set().dims[0]) return seed;
    }
  }
  store::TestTempDir cache_;
};

TEST_F(AttnDecodeReference, AgreesWithAPlainSoftmaxOverTheValidSlotsAndDrawsPartRings) {
  const auto ks = kernels("attn_decode");
  int part = 0, full = 0;
  for (const auto& k : ks) {
    const auto& dims = k->shape_set().dims;
    for (uint64_t seed = 1; seed <= 8; ++seed) {
      SharedBuffers b(k->regions());
      k->generate(seed, b);
      const int64_t valid = b.as<int32_t>("valid")[0];
      ASSERT_GE(valid, dims[4]);
      ASSERT_LE(valid, dims[0]);
      (valid < dims[0] ? part : full) += 1;
      const auto expected = k->reference(b);
      ASSERT_EQ(expected.size(), 1u);
      const Cache kc{&b, "k_cache", "", dims[1], dims[3]}, vc{&b, "v_cache", "", dims[1], dims[3]};
      expect_agrees(expected[0].values, plain_attention(b, dims, kc, vc),
                    k->shape_set().name + " seed " + std::to_string(seed));
    }
  }
  EXPECT_GT(part, 0);  // the ring: some input sets part filled, some full
  EXPECT_GT(full, 8);  // the full shape set always full, and the ring sometimes
}

TEST_F(AttnDecodeReference, SlotsPastTheValidCountNeverAffectTheOutput) {
  for (const std::string name : {"attn_decode", "attn_decode_f8"}) {
    const auto ks = kernels(name);
    const SpecKernel& k = *ks[0];
    SharedBuffers b(k.regions());
    k.generate(part_filled_seed(k), b);
    const auto& dims = k.shape_set().dims;
    const int64_t valid = b.as<int32_t>("valid")[0], row = dims[1] * dims[3];
    const std::vector<double> before = k.reference(b)[0].values;
    // Huge keys and values (bf16 0x7f7f is 3.4e38; f8 0x7e is 448, with a huge scale) past valid.
    auto fill_from = [&](int64_t first) {
      for (const char* cache : {"k_cache", "v_cache"}) {
        if (name == "attn_decode") {
          auto c = b.as<bf16>(cache);
          for (size_t e = static_cast<size_t>(first * row); e < c.size(); ++e)
            c[e] = bf16{static_cast<uint16_t>(e % 2 ? 0x7f7f : 0xff7f)};
        } else {
          auto c = b.as<uint8_t>(cache);
          for (size_t e = static_cast<size_t>(first * row); e < c.size(); ++e) c[e] = 0x7e;
        }
      }
      if (name == "attn_decode") return;
      for (const char* scale : {"k_scale", "v_scale"}) {
        auto s = b.as<float>(scale);
        for (size_t e = static_cast<size_t>(first * dims[1]); e < s.size(); ++e) s[e] = 1e30f;
      }
    };
    fill_from(valid);
    EXPECT_EQ(k.reference(b)[0].values, before) << name;
    fill_from(valid - 1);  // the last valid slot: now it counts
    EXPECT_NE(k.reference(b)[0].values, before) << name;
  }
}

TEST_F(AttnDecodeReference, TheF8SpecDecodesEachCodeTimesItsSlotsAndGroupsScale) {
  const auto ks = kernels("attn_decode_f8");
  for (const auto& k : ks) {
    const auto& dims = k->shape_set().dims;
    for (uint64_t seed = 1; seed <= 4; ++seed) {
      SharedBuffers b(k->regions());
      k->generate(seed, b);
      const Cache kc{&b, "k_cache", "k_scale", dims[1], dims[3]},
          vc{&b, "v_cache", "v_scale", dims[1], dims[3]};
      const std::vector<double> expected = k->reference(b)[0].values;
      expect_agrees(expected, plain_attention(b, dims, kc, vc),
                    k->shape_set().name + " seed " + std::to_string(seed));
      // Doubling every value scale doubles attn exactly; doubling every key scale sharpens the
      // softmax and moves it.
      for (float& s : b.as<float>("v_scale")) s *= 2;
      const std::vector<double> doubled = k->reference(b)[0].values;
      for (size_t i = 0; i < expected.size(); ++i) ASSERT_EQ(doubled[i], 2 * expected[i]) << i;
      for (float& s : b.as<float>("k_scale")) s *= 2;
      EXPECT_NE(k->reference(b)[0].values, doubled);
    }
  }
}

// `kernel check`'s procedure (knowledge/spec_check.h) on a copy of a spec at the small shape
// sets, its cpu baseline's line `from` replaced by `to` (nothing when both are empty); the
// outcomes at each shape set, with the seed the ring's input set is part filled at.
std::vector<knowledge::SourceCheck> check_copy(const fs::path& dir, const std::string& name,
                                               const std::string& from, const std::string& to) {
  fs::create_directories(dir);
  for (const auto& entry : fs::directory_iterator(kDir))
    fs::copy_file(entry.path(), dir / entry.path().filename());
  std::string toml = read_file(dir / (name + ".toml")).value();
  const size_t first = toml.find("[[shapes]]"), args = toml.find("[[arguments]]");
  toml.replace(first, args - first, kSmallToml);
  write_file(dir / (name + ".toml"), toml);
  if (!from.empty()) {
    std::string baseline = read_file(dir / (name + "_cpu.cc")).value();
    const size_t at = baseline.find(from);
    EXPECT_NE(at, std::string::npos) << from;
    if (at == std::string::npos) return {};
    baseline.replace(at, from.size(), to);
    write_file(dir / (name + "_cpu.cc"), baseline);
  }
  auto judged = knowledge::judge_spec(dir / (name + ".toml"), 1, dir / "cache");
  EXPECT_TRUE(judged) << judged.error().message;
  if (!judged) return {};
  uint64_t seed = 1;
  for (;; ++seed) {  // the ring part filled, so that `valid` matters
    const SpecKernel& ring = *judged->kernels[0];
    SharedBuffers b(ring.regions());
    ring.generate(seed, b);
    if (b.as<int32_t>("valid")[0] < 24) break;
  }
  auto target = targets::make_target("cpu");
  auto checks = knowledge::check_spec_sources(judged.value(), *target, seed, dir / "cache");
  EXPECT_TRUE(checks) << checks.error().message;
  return checks ? checks.value() : std::vector<knowledge::SourceCheck>{};
}

int incorrect(const std::vector<knowledge::SourceCheck>& checks) {
  int count = 0;
  for (const auto& c : checks)
    count += c.outcome.status == targets::CheckOutcome::Status::kIncorrect;
  return count;
}

TEST(AttnDecodeBaseline, PassesAndEachPlantedBugIsRejected) {
  store::TestTempDir tmp;
  struct Bug {
    std::string name, from, to;
  };
  const std::vector<Bug> bugs = {
      {"attn_decode", "", ""},
      {"attn_decode", "score[t] = s * scale;", "score[t] = s;"},  // the scale omitted
      {"attn_decode", "a->q + (n * g_heads + g) * d;",            // group 1's two heads swapped
       "a->q + (n * g_heads + (n == 1 ? g_heads - 1 - g : g)) * d;"},
      {"attn_decode", "const int64_t valid = *a->valid;",  // every slot read
       "const int64_t valid = a->dims[0];"},
      {"attn_decode_f8", "", ""},
      {"attn_decode_f8", "(f8.v[v[i]] * v_scale)", "f8.v[v[i]]"},
      {"attn_decode_f8", "a->k_scale[t * n_groups + n]",  // the scales read [N][T]
       "a->k_scale[n * a->dims[0] + t]"},
  };
  for (size_t i = 0; i < bugs.size(); ++i) {
    const Bug& bug = bugs[i];
    const auto checks = check_copy(tmp.path() / std::to_string(i), bug.name, bug.from, bug.to);
    ASSERT_EQ(checks.size(), 2u) << bug.to;  // the baseline at each shape set
    if (bug.from.empty()) {
      for (const auto& c : checks) EXPECT_TRUE(c.outcome.correct()) << c.outcome.description;
    } else {
      EXPECT_GE(incorrect(checks), 1) << bug.name << ": " << bug.to;
    }
  }
}

}  // namespace
}  // namespace headway
