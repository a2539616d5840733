#include "statistics/reading_stats.h"

#include <gtest/gtest.h>

#include <cmath>
#include <vector>

#include "common/rng.h"

namespace headway::statistics {
namespace {

void add_pair(std::vector<Reading>& out, int64_t test, int pair, Arm first, double t_first,
              double t_second) {
  Reading r;
  r.kernel = "k";
  r.node = "n";
  r.test_id = test;
  r.pair_index = pair;
  r.position = 0;
  r.arm = first;
  r.seconds = t_first;
  out.push_back(r);
  r.position = 1;
  r.arm = other(first);
  r.seconds = t_second;
  out.push_back(r);
}

// Two decisions:
//   test 0: (head 1.0, cand 1.1) (cand 0.9, head 1.2) (head 1.1, cand 1.0)
//   test 1: (head 2.0, cand 2.0) (cand 2.2, head 1.9) plus a lone head reading 2.05 (pair 2)
// Expected values computed independently (Python, statistics module):
//   head CVs 0.0909091 (1.0, 1.2, 1.1) and 0.0385090 (2.0, 1.9, 2.05), median 0.0647091
//   rho (decision-centred ln times, pooled) -0.9844135; lag-1 of d -0.0819768
//   candidate first 2/5, d < 0 2/5, second vs first +2.8617554%
std::vector<Reading> two_decisions() {
  std::vector<Reading> rs;
  add_pair(rs, 0, 0, Arm::kHead, 1.0, 1.1);
  add_pair(rs, 0, 1, Arm::kCandidate, 0.9, 1.2);
  add_pair(rs, 0, 2, Arm::kHead, 1.1, 1.0);
  add_pair(rs, 1, 0, Arm::kHead, 2.0, 2.0);
  add_pair(rs, 1, 1, Arm::kCandidate, 2.2, 1.9);
  Reading lone;
  lone.kernel = "k";
  lone.node = "n";
  lone.test_id = 1;
  lone.pair_index = 2;
  lone.arm = Arm::kHead;
  lone.seconds = 2.05;
  rs.push_back(lone);
  return rs;
}

TEST(ReadingStats, HandComputedExample) {
  const ReadingStats s = summarize_readings(two_decisions());
  EXPECT_EQ(s.decisions, 2);
  EXPECT_EQ(s.pairs, 5);
  EXPECT_NEAR(s.head_cv, 0.06470906518125065, 1e-12);
  EXPECT_NEAR(s.in_pair_rho, -0.984413528328763, 1e-12);
  EXPECT_NEAR(s.lag1_autocorr, -0.08197678180290571, 1e-12);
  EXPECT_NEAR(s.candidate_first_fraction, 0.4, 1e-15);
  EXPECT_NEAR(s.d_negative_fraction, 0.4, 1e-15);
  EXPECT_NEAR(s.second_vs_first_pct, 2.861755351046821, 1e-10);
}

TEST(ReadingStats, AccumulatorMatchesGrouping) {
  const auto rs = two_decisions();
  ReadingStatsAccumulator acc;
  acc.add_decision(std::span<const Reading>(rs.data(), 6));
  acc.add_decision(std::span<const Reading>(rs.data() + 6, rs.size() - 6));
  const ReadingStats a = acc.result();
  const ReadingStats b = summarize_readings(rs);
  EXPECT_EQ(a.pairs, b.pairs);
  EXPECT_DOUBLE_EQ(a.in_pair_rho, b.in_pair_rho);
  EXPECT_DOUBLE_EQ(a.lag1_autocorr, b.lag1_autocorr);
}

TEST(ReadingStats, LogRatiosByTest) {
  const auto d = log_ratios_by_test(two_decisions());
  ASSERT_EQ(d.size(), 2u);
  ASSERT_EQ(d.at(0).size(), 3u);
  EXPECT_NEAR(d.at(0)[0], std::log(1.1), 1e-15);
  EXPECT_NEAR(d.at(0)[1], std::log(0.9 / 1.2), 1e-15);
  ASSERT_EQ(d.at(1).size(), 2u);  // the lone head reading of pair 2 is no pair
  EXPECT_NEAR(d.at(1)[1], std::log(2.2 / 1.9), 1e-15);
}

TEST(ReadingStats, EmptyIsNaN) {
  const ReadingStats s = summarize_readings({});
  EXPECT_EQ(s.pairs, 0);
  EXPECT_TRUE(std::isnan(s.head_cv));
  EXPECT_TRUE(std::isnan(s.in_pair_rho));
  EXPECT_TRUE(std::isnan(s.lag1_autocorr));
  EXPECT_TRUE(std::isnan(s.candidate_first_fraction));
}

TEST(ReadingStats, RecoversKnownCorrelation) {
  // ln t_head = a + u, ln t_cand = a + v with a shared N(0, 0.6^2) part and independent
  // N(0, 0.8^2) parts: rho = 0.36 / (0.36 + 0.64) = 0.36; independent pairs: lag-1 ~ 0.
  Rng rng(17);
  std::vector<Reading> rs;
  for (int test = 0; test < 200; ++test) {
    for (int pair = 0; pair < 20; ++pair) {
      const double a = 0.006 * rng.normal();
      const double th = std::exp(0.008 * rng.normal() + a);
      const double tc = std::exp(0.008 * rng.normal() + a);
      if (rng.coin()) {
        add_pair(rs, test, pair, Arm::kHead, th, tc);
      } else {
        add_pair(rs, test, pair, Arm::kCandidate, tc, th);
      }
    }
  }
  const ReadingStats s = summarize_readings(rs);
  EXPECT_NEAR(s.in_pair_rho, 0.36, 0.04);
  EXPECT_NEAR(s.lag1_autocorr, 0.0, 0.04);
  EXPECT_NEAR(s.head_cv, 0.01, 0.001);
  EXPECT_NEAR(s.candidate_first_fraction, 0.5, 0.03);
  EXPECT_NEAR(s.d_negative_fraction, 0.5, 0.03);
}

}  // namespace
}  // namespace headway::statistics
