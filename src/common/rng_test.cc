#include "common/rng.h"

#include <gtest/gtest.h>

#include <cmath>
#include <vector>

namespace headway {
namespace {

TEST(Rng, SameSeedSameStream) {
  Rng a(42);
  Rng b(42);
  for (int i = 0; i < 100; ++i) {
    EXPECT_EQ(a.next_u64(), b.next_u64());
    EXPECT_EQ(a.normal(), b.normal());
  }
}

TEST(Rng, DifferentSeedsDiffer) {
  Rng a(1);
  Rng b(2);
  int equal = 0;
  for (int i = 0; i < 100; ++i) equal += a.next_u64() == b.next_u64() ? 1 : 0;
  EXPECT_EQ(equal, 0);
}

TEST(Rng, MixSeedSeparatesStreams) {
  EXPECT_NE(mix_seed(7, 0), mix_seed(7, 1));
  EXPECT_NE(mix_seed(7, 0), mix_seed(8, 0));
  EXPECT_EQ(mix_seed(7, 3), mix_seed(7, 3));
}

TEST(Rng, UniformAndNormalMoments) {
  Rng rng(123);
  const int n = 200000;
  double su = 0.0, sn = 0.0, sn2 = 0.0;
  int heads = 0;
  for (int i = 0; i < n; ++i) {
    const double u = rng.uniform();
    ASSERT_GE(u, 0.0);
    ASSERT_LT(u, 1.0);
    su += u;
    const double z = rng.normal();
    sn += z;
    sn2 += z * z;
    heads += rng.coin() ? 1 : 0;
  }
  EXPECT_NEAR(su / n, 0.5, 0.005);
  EXPECT_NEAR(sn / n, 0.0, 0.01);
  EXPECT_NEAR(sn2 / n, 1.0, 0.01);
  EXPECT_NEAR(static_cast<double>(heads) / n, 0.5, 0.005);
}

TEST(Rng, StudentT3HasVarianceThree) {
  Rng rng(9);
  const int n = 400000;
  int beyond = 0;
  for (int i = 0; i < n; ++i) beyond += std::fabs(rng.student_t(3)) > 3.182446 ? 1 : 0;
  // P(|T3| > t_{0.975,3}) = 5%.
  EXPECT_NEAR(static_cast<double>(beyond) / n, 0.05, 0.003);
}

TEST(Rng, BelowStaysInRangeAndCoversIt) {
  Rng rng(5);
  std::vector<int> hits(7, 0);
  for (int i = 0; i < 7000; ++i) {
    const uint64_t x = rng.below(7);
    ASSERT_LT(x, 7u);
    ++hits[x];
  }
  for (int h : hits) EXPECT_GT(h, 800);
  EXPECT_THROW(rng.below(0), std::invalid_argument);
}

}  // namespace
}  // namespace headway
