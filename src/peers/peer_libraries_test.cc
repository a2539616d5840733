#include "peers/peer_libraries.h"

#include <gtest/gtest.h>

#include <cmath>
#include <string>
#include <vector>

#include "common/rng.h"
#include "kernels/contract.h"
#include "kernels/numerics.h"

namespace headway::peers {
namespace {

// Values as the peer's format holds them (bf16: rounded to nearest even).
float in_peer_format(PeerLibrary peer, float v) {
  return peer == PeerLibrary::kOnednnBf16 ? bf16_to_float(float_to_bf16(v)) : v;
}

// A product of a shape that is neither square nor a multiple of a vector width, so that swapped
// rows and columns, a transposed layout or a missed tail all give wrong values.
TEST(PeerLibraries, EachPeerAgreesWithAnF64Reference) {
  const Matvec product{"w", 37, 70};
  Rng rng(7);
  std::vector<float> w(product.rows * product.cols), x(product.cols);
  for (auto& v : w) v = static_cast<float>(rng.uniform(-1, 1));
  for (auto& v : x) v = static_cast<float>(rng.uniform(-1, 1));
  for (const PeerLibrary peer : all_peer_libraries()) {
    SCOPED_TRACE(std::string(peer_name(peer)));
    auto y = peer_matvec(peer, product, w, x);
    if (const auto why = peer_unavailable(peer)) {
      ASSERT_FALSE(y.ok()) << "a peer said to be unavailable ran";
      EXPECT_EQ(y.error().code, ErrorCode::kEnvironment);
      EXPECT_EQ(y.error().message, *why);
      continue;
    }
    ASSERT_TRUE(y.ok()) << y.error().message;
    ASSERT_EQ(y->size(), product.rows);
    // Rounding of the output (bf16: 2^-8 relative) and f32 sums, against the sum of magnitudes.
    const double rel = peer == PeerLibrary::kOnednnBf16 ? 1.0 / 128 : 1e-5;
    for (size_t r = 0; r < product.rows; ++r) {
      double expected = 0, magnitude = 0;
      for (size_t c = 0; c < product.cols; ++c) {
        const double term = double{in_peer_format(peer, w[r * product.cols + c])} *
                            double{in_peer_format(peer, x[c])};
        expected += term;
        magnitude += std::fabs(term);
      }
      EXPECT_NEAR((*y)[r], expected, rel * magnitude + 1e-6) << "row " << r;
    }
  }
}

// oneDNN 2.x implements bf16 matmul on AVX-512 core chips only (F, BW, VL and DQ); the f32 peers
// run on any x86-64.
TEST(PeerLibraries, OnlyThePeersTheLibraryCannotRunHereAreUnavailable) {
  const bool avx512_core = __builtin_cpu_supports("avx512f") &&
                           __builtin_cpu_supports("avx512bw") &&
                           __builtin_cpu_supports("avx512vl") && __builtin_cpu_supports("avx512dq");
  EXPECT_FALSE(peer_unavailable(PeerLibrary::kOnednnF32).has_value());
  EXPECT_FALSE(peer_unavailable(PeerLibrary::kOpenblasSgemv).has_value());
  const auto bf16 = peer_unavailable(PeerLibrary::kOnednnBf16);
  EXPECT_EQ(bf16.has_value(), !avx512_core);
  if (bf16) {
    EXPECT_NE(bf16->find("has no bf16 matmul for this CPU"), std::string::npos) << *bf16;
    if (__builtin_cpu_supports("avx2")) {
      EXPECT_NE(bf16->find("the instruction set it uses here: AVX2"), std::string::npos) << *bf16;
    }
  }
}

TEST(PeerLibraries, MatvecRejectsSizesThatDoNotMatch) {
  const Matvec product{"w", 4, 8};
  const std::vector<float> w(31), x(8);
  auto y = peer_matvec(PeerLibrary::kOpenblasSgemv, product, w, x);
  ASSERT_FALSE(y.ok());
  EXPECT_EQ(y.error().code, ErrorCode::kInvalidInput);
}

TEST(PeerLibraries, KernelProductsAreTheKernelsWeights) {
  // Each weight element is one f8 code (qkv, attn_out) or half a byte of NVFP4 codes plus a
  // scale byte per 16 (ffn): the products' sizes account for the contract's quantized bytes.
  for (const auto& name : builtin_kernel_names()) {
    SCOPED_TRACE(name);
    auto products = kernel_matvecs(name);
    ASSERT_TRUE(products.ok()) << products.error().message;
    uint64_t elements = 0;
    for (const auto& p : products.value()) elements += p.rows * p.cols;
    const KernelContract& kernel = *builtin_kernel(name);
    const uint64_t expected = kernel.weight_format() == KernelContract::WeightFormat::kF8e4m3
                                  ? elements
                                  : elements / 2 + elements / 16;
    EXPECT_EQ(kernel.quantized_weight_bytes(), expected);
  }
  auto ffn = kernel_matvecs("ffn");
  ASSERT_TRUE(ffn.ok());
  ASSERT_EQ(ffn->size(), 3u);
  EXPECT_EQ((*ffn)[2].rows, 3840u);  // down: [3840][15360]
  EXPECT_EQ((*ffn)[2].cols, 15360u);
  EXPECT_FALSE(kernel_matvecs("softmax").ok());
}

TEST(PeerLibraries, BytesAreWeightsAndBothVectorsInThePeersFormat) {
  const std::vector<Matvec> qkv{{"q|k|v", 8192, 3840}};
  EXPECT_EQ(peer_bytes(PeerLibrary::kOnednnBf16, qkv), (8192ull * 3840 + 3840 + 8192) * 2);
  EXPECT_EQ(peer_bytes(PeerLibrary::kOnednnF32, qkv), (8192ull * 3840 + 3840 + 8192) * 4);
  EXPECT_EQ(peer_bytes(PeerLibrary::kOpenblasSgemv, qkv), (8192ull * 3840 + 3840 + 8192) * 4);
  const std::vector<Matvec> two{{"a", 2, 3}, {"b", 5, 7}};
  EXPECT_EQ(peer_bytes(PeerLibrary::kOnednnBf16, two), ((6 + 3 + 2) + (35 + 7 + 5)) * 2u);
}

TEST(PeerLibraries, CopiesKeepEachSetColdAndAreAtLeastTwo) {
  EXPECT_EQ(copies_for_cold(100, 0), 2u);
  EXPECT_EQ(copies_for_cold(1000, 200), 2u);
  EXPECT_EQ(copies_for_cold(100, 200), 3u);  // two other sets of 100 between two uses
  EXPECT_EQ(copies_for_cold(100, 201), 4u);
}

TEST(PeerLibraries, ARunTakesItsCopiesInTurn) {
  auto run = PeerRun::start(PeerLibrary::kOpenblasSgemv, {{"w", 64, 64}}, 3 * 64 * 64 * 4, 1);
  ASSERT_TRUE(run.ok()) << run.error().message;
  EXPECT_GE(run.value()->copies(), 4u);
  for (int i = 0; i < 5; ++i) {
    auto s = run.value()->reading();
    ASSERT_TRUE(s.ok()) << s.error().message;
    EXPECT_GT(s.value(), 0.0);
  }
  EXPECT_FALSE(PeerRun::start(PeerLibrary::kOnednnF32, {}, 0, 1).ok());
}

TEST(PeerLibraries, RoundsStartOneArmLaterEachTime) {
  EXPECT_EQ(interleaved_order(3, 0), (std::vector<size_t>{0, 1, 2}));
  EXPECT_EQ(interleaved_order(3, 1), (std::vector<size_t>{1, 2, 0}));
  EXPECT_EQ(interleaved_order(3, 5), (std::vector<size_t>{2, 0, 1}));
  EXPECT_TRUE(interleaved_order(0, 4).empty());
}

TEST(PeerLibraries, InterleavedReadingsDropWarmupsAndKeepEachArmsOwn) {
  std::vector<size_t> calls;
  std::vector<InterleavedArm> arms;
  for (size_t a = 0; a < 3; ++a) {
    arms.push_back({"arm" + std::to_string(a), [&calls, a]() -> Result<double> {
                      calls.push_back(a);
                      return static_cast<double>(10 * a + calls.size());
                    }});
  }
  auto readings = read_interleaved(arms, 2, 1);
  ASSERT_TRUE(readings.ok()) << readings.error().message;
  EXPECT_EQ(calls, (std::vector<size_t>{0, 1, 2, 1, 2, 0, 2, 0, 1}));
  // Arm 1 made the 4th and 9th calls, after its warm-up (the 2nd).
  EXPECT_EQ((*readings)[1], (std::vector<double>{14, 19}));
  EXPECT_EQ((*readings)[0], (std::vector<double>{6, 8}));
}

TEST(PeerLibraries, AFailedReadingEndsTheRunNamingItsArm) {
  int calls = 0;
  std::vector<InterleavedArm> arms{
      {"good", [&]() -> Result<double> { return ++calls; }},
      {"bad", [&]() -> Result<double> { return environment_error("library fell over"); }}};
  auto readings = read_interleaved(arms, 3, 0);
  ASSERT_FALSE(readings.ok());
  EXPECT_EQ(readings.error().code, ErrorCode::kEnvironment);
  EXPECT_EQ(readings.error().message, "bad: library fell over");
  EXPECT_EQ(calls, 1);
}

TEST(PeerLibraries, RuntimeNamesVersionsAndThreads) {
  const PeerRuntime rt = peer_runtime();
  EXPECT_FALSE(rt.onednn_version.empty());
  EXPECT_FALSE(rt.onednn_runtime.empty());
  EXPECT_GE(rt.openblas_threads, 1);
  EXPECT_FALSE(rt.openblas_config.empty());
}

}  // namespace
}  // namespace headway::peers
