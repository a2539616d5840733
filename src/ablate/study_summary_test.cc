#include "ablate/study_summary.h"

#include <gtest/gtest.h>

#include <cmath>

#include "common/file_io.h"
#include "store/test_temp_dir.h"

namespace headway::ablate {
namespace {

nlohmann::json result(double ratio_a, double ratio_b, int tests, int accepted) {
  return {{"tests", tests},
          {"accepted", accepted},
          {"kernels",
           {{{"name", "a"}, {"ratio_to_floor", ratio_a}, {"speedup", 4.0}},
            {{"name", "b"}, {"ratio_to_floor", ratio_b}, {"speedup", 9.0}}}}};
}

TEST(AblateSummary, ARunsFiguresAreGeometricMeansOverItsKernels) {
  const auto f = run_figures(result(2.0, 8.0, 5, 2));
  EXPECT_NEAR(f.at("ratio_to_floor"), 4.0, 1e-12);
  EXPECT_NEAR(f.at("speedup"), 6.0, 1e-12);
  EXPECT_EQ(f.at("tests"), 5);
  EXPECT_EQ(f.at("accepted"), 2);
  auto untimed = result(2.0, 8.0, 5, 2);
  untimed["kernels"][1]["ratio_to_floor"] = nullptr;
  const auto g = run_figures(untimed);
  EXPECT_FALSE(g.contains("ratio_to_floor")) << "a kernel without a head leaves the figure out";
  EXPECT_TRUE(g.contains("speedup"));
  EXPECT_TRUE(run_figures(nlohmann::json::object()).empty());
}

TEST(AblateSummary, MediansIntervalsAndTheDifferenceFromTheFullLoop) {
  store::TestTempDir tmp;
  StudySpec spec;
  spec.arms = {"full", "without-racing"};
  spec.runs = 9;
  const Study study = Study::create_or_open(tmp.path(), spec).value();
  for (int run = 0; run < 9; ++run) {
    write_file_creating_folders(study.run_dir("full", run) / "result.json",
                                result(1.0 + 0.01 * run, 1.0 + 0.01 * run, 4, 2).dump());
    write_file_creating_folders(study.run_dir("without-racing", run) / "result.json",
                                result(1.5 + 0.01 * run, 1.5 + 0.01 * run, 12, 3).dump());
  }
  const auto arms = summarize(study);
  ASSERT_EQ(arms.size(), 2u);
  EXPECT_EQ(arms[0].arm, "full");
  EXPECT_EQ(arms[0].runs_done, 9);
  const FigureSummary& full = arms[0].figures.at("ratio_to_floor");
  EXPECT_NEAR(full.median, 1.04, 1e-12);
  EXPECT_LE(full.interval.low, full.median);
  EXPECT_GE(full.interval.high, full.median);
  EXPECT_GE(full.interval.coverage, 0.95);
  EXPECT_FALSE(full.difference) << "the full loop is not compared with itself";
  const FigureSummary& off = arms[1].figures.at("ratio_to_floor");
  ASSERT_TRUE(off.difference);
  EXPECT_NEAR(*off.difference, 0.5, 1e-12);
  EXPECT_GT(off.difference_low, 0.0) << "every run of the arm is above every run of full";
  EXPECT_LE(off.difference_low, 0.5);
  EXPECT_GE(off.difference_high, 0.5);
  EXPECT_GT(off.difference_coverage, 0.9);
  EXPECT_EQ(arms[1].figures.at("tests").difference, 8.0);

  const auto j = to_json(arms);
  EXPECT_EQ(j[1]["figures"]["tests"]["difference_from_full"]["median"], 8.0);
  EXPECT_FALSE(j[0]["figures"]["tests"].contains("difference_from_full"));
  const std::string md = render(study, arms, true);
  EXPECT_NE(md.find("### ratio_to_floor"), std::string::npos) << md;
  EXPECT_NE(md.find("| without-racing | 9 | 1.54 |"), std::string::npos) << md;
  const std::string text = render(study, arms, false);
  EXPECT_NE(text.find("without-racing"), std::string::npos);
  EXPECT_EQ(text.find("|"), std::string::npos);
}

TEST(AblateSummary, AnArmWithNoRunsYetIsShownEmpty) {
  store::TestTempDir tmp;
  StudySpec spec;
  spec.arms = {"full", "rule-reference"};
  const Study study = Study::create_or_open(tmp.path(), spec).value();
  write_file_creating_folders(study.run_dir("full", 0) / "result.json",
                              result(1.2, 1.2, 4, 1).dump());
  const auto arms = summarize(study);
  EXPECT_EQ(arms[1].runs_done, 0);
  EXPECT_TRUE(arms[1].figures.empty());
  EXPECT_NE(render(study, arms, true).find("| rule-reference | 0 |"), std::string::npos);
}

}  // namespace
}  // namespace headway::ablate
