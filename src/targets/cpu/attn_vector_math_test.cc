// The attention driver's vector math (include/headway/headway_attn.h): exp16 and hsum_pair, in a
// small program built with -march=native against the real candidate header. Skipped where the
// CPU or the compiler has no AVX-512F (the driver's scalar path then runs, which std::exp serves).
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>

#include "common/subprocess.h"
#include "store/test_temp_dir.h"

namespace headway::cpu {
namespace {

namespace fs = std::filesystem;

// Prints "none" without AVX-512F; else "exp MAX_ULP WORST_X TINY_ERR" (the largest error in
// units of the last place of exp16 against the double exp over [-87, 88], where exp is a normal
// f32, its argument, and the largest absolute error where exp is below the normal range), then
// "clamp LOW HIGH" (exp16 of -1000 and of -inf), then "pair A B" (hsum_pair of two vectors whose
// sums are known exactly).
constexpr const char* kProgram = R"(
#include <cmath>
#include <cstdio>
#include "headway_attn.h"
int main() {
#if defined(__AVX512F__)
  double worst = 0, worst_x = 0, tiny = 0;
  alignas(64) float x[16], y[16];
  for (int i = 0; i < 200000; ++i) {
    for (int k = 0; k < 16; ++k) x[k] = -104.0f + 192.0f * float(i * 16 + k) / (200000.0f * 16);
    _mm512_store_ps(y, hw::exp16(_mm512_load_ps(x)));
    for (int k = 0; k < 16; ++k) {
      const double want = std::exp(double(x[k]));
      if (want < 1.1754943508222875e-38) {
        tiny = std::fmax(tiny, std::fabs(y[k] - want));
        continue;
      }
      const double ulp = std::ldexp(1.0, std::ilogb(want) - 23);
      const double err = std::fabs(y[k] - want) / ulp;
      if (err > worst) { worst = err; worst_x = x[k]; }
    }
  }
  std::printf("exp %.3f %.6f %.3g\n", worst, worst_x, tiny);
  alignas(64) float lo[16];
  _mm512_store_ps(lo, hw::exp16(_mm512_set1_ps(-1000.0f)));
  alignas(64) float inf[16];
  _mm512_store_ps(inf, hw::exp16(_mm512_set1_ps(-INFINITY)));
  std::printf("clamp %g %g\n", lo[0], inf[0]);
  alignas(64) float a[16], b[16];
  for (int k = 0; k < 16; ++k) { a[k] = float(k + 1); b[k] = float(100 * (k + 1)); }
  float out[2];
  hw::hsum_pair(_mm512_load_ps(a), _mm512_load_ps(b), out);
  std::printf("pair %g %g\n", out[0], out[1]);
#else
  std::printf("none\n");
#endif
}
)";

TEST(AttnVectorMath, Exp16IsWithinTwoUlpAndHsumPairSumsEachVector) {
  store::TestTempDir dir;
  const fs::path include = fs::path(HEADWAY_SOURCE_DIR) / "include/headway";
  std::ofstream(dir.path() / "math.cc") << kProgram;
  const ProcessResult built =
      run_process({"g++", "-std=c++20", "-O2", "-march=native", "-I", include.string(),
                   (dir.path() / "math.cc").string(), "-o", (dir.path() / "math").string()},
                  300.0);
  ASSERT_TRUE(built.ok()) << built.output;
  const ProcessResult ran = run_process({(dir.path() / "math").string()}, 60.0);
  ASSERT_TRUE(ran.ok()) << ran.output;
  if (ran.output == "none\n") GTEST_SKIP() << "no AVX-512F here: the driver's scalar path runs";
  std::istringstream lines(ran.output);
  std::string word;
  double worst = 0, worst_x = 0, tiny = 0, low = -1, at_minus_inf = -1, a = 0, b = 0;
  lines >> word >> worst >> worst_x >> tiny;
  ASSERT_EQ(word, "exp") << ran.output;
  EXPECT_LE(worst, 2.0) << "worst at x = " << worst_x;
  EXPECT_LE(tiny, 1e-38) << "below the normal range, within a few subnormal steps";
  lines >> word >> low >> at_minus_inf;
  ASSERT_EQ(word, "clamp") << ran.output;
  EXPECT_LT(low, 1e-44) << "far below the range: (almost) zero, never a NaN or garbage";
  EXPECT_LT(at_minus_inf, 1e-44) << "a running maximum of -inf shrinks nothing into a NaN";
  lines >> word >> a >> b;
  ASSERT_EQ(word, "pair") << ran.output;
  EXPECT_EQ(a, 136.0);    // 1 + ... + 16
  EXPECT_EQ(b, 13600.0);  // 100 times that
}

}  // namespace
}  // namespace headway::cpu
