#include "report/plots.h"

#include <gtest/gtest.h>

#include <cmath>

namespace headway::report {
namespace {

KernelReport kernel() {
  KernelReport k;
  k.name = "qkv";
  k.baseline_ms = 25.0;
  k.head_ms = 1.5;
  k.floor_ms = 0.9;
  k.decode_ms = NAN;
  trees::HeadRecord first{1, 1, "2026-11-30T10:00:00.000Z", 25.0, std::nullopt, std::nullopt};
  trees::HeadRecord second{2, 4, "2026-11-30T10:00:30.000Z", 3.0, 1, 4.0};
  trees::HeadRecord third{3, 9, "2026-11-30T10:01:00.000Z", 1.5, 2, 9.0};
  k.heads = {first, second, third};
  NodeReport late;
  late.node.id = 12;
  late.node.updated_at = "2026-11-30T10:01:40.000Z";
  k.nodes = {late};
  return k;
}

TEST(ReportPlots, BarsLeaveOutAnUnknownCeiling) {
  const auto p = bars_plot(kernel());
  ASSERT_TRUE(p);
  EXPECT_NE(p->find("0 25 0x7f8c8d\n1 1.5 0x27ae60\n2 0.9 0x2980b9\n"), std::string::npos) << *p;
  EXPECT_EQ(p->find("decode ceiling"), std::string::npos) << *p;
  EXPECT_NE(p->find("set yrange [0.3:75]"), std::string::npos) << *p;
  KernelReport none;
  none.baseline_ms = none.head_ms = none.floor_ms = none.decode_ms = NAN;
  EXPECT_FALSE(bars_plot(none));
}

TEST(ReportPlots, HeadTimeStepsToTheEndOfTheRunAndMarksEachChange) {
  const auto p = head_time_plot(kernel());
  ASSERT_TRUE(p);
  // 100 s of run: seconds; the line runs on to the newest node at 100 s.
  EXPECT_NE(p->find("seconds since the kernel was registered"), std::string::npos) << *p;
  EXPECT_NE(p->find("$head << EOD\n0 25\n30 3\n60 1.5\n100 1.5\nEOD\n"), std::string::npos) << *p;
  EXPECT_NE(p->find("$changes << EOD\n30 3 \"#4\"\n60 1.5 \"#9\"\nEOD\n"), std::string::npos) << *p;
  EXPECT_NE(p->find("0.9 with lines dt 2"), std::string::npos) << "the memory floor";
  // From below the floor (0.9 / 1.5) to above the baseline (25 * 2.5), over the whole run.
  EXPECT_NE(p->find("set yrange [0.6:62.5]\nset xrange [0:100]\n"), std::string::npos) << *p;
  EXPECT_FALSE(head_time_plot(KernelReport{}));
}

TEST(ReportPlots, WealthAgainstOneOverAlpha) {
  TestReport t;
  t.record.id = 3;
  t.record.outcome = statistics::Outcome::kFaster;
  EXPECT_FALSE(wealth_plot(t)) << "no wealth, no plot";
  statistics::BettingConfig c;
  c.s0 = 0.01;
  c.alpha = 0.05;
  t.config = c;
  t.wealth = {{1.5, 0.5, 0.9, 1.2}, {25, 0.1, 0.4, 3}};
  const auto p = wealth_plot(t);
  ASSERT_TRUE(p);
  EXPECT_NE(p->find("1 1.5 0.5 0.9\n2 25 0.1 0.4\n"), std::string::npos) << *p;
  EXPECT_NE(p->find("20 with lines dt 2 lw 2"), std::string::npos) << *p;
  EXPECT_NE(p->find("10 with lines dt 3"), std::string::npos) << "1/alpha_e";
  EXPECT_NE(p->find("test #3: FASTER after 2 pairs"), std::string::npos);
}

}  // namespace
}  // namespace headway::report
