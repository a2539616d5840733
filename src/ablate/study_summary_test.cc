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

TEST(AblateSummary, DeviceTimeToTheFloorTruthAndAgentFiguresComeFromTheResult) {
  auto r = result(1.2, 1.2, 4, 1);
  r["device_seconds"] = 30.0;
  r["device_seconds_to_1_25x"] = 12.5;
  r["device_seconds_to_1_10x"] = nullptr;  // never got there
  r["truth"] = {{"judged", 4}, {"false_accepts", 1}, {"true_gains", 2}, {"false_rejects", 1}};
  r["agent"] = {{"calls", 7}, {"cost_usd", 0.25}};
  const auto f = run_figures(r);
  EXPECT_EQ(f.at("device_seconds"), 30.0);
  EXPECT_EQ(f.at("device_seconds_to_1_25x"), 12.5);
  EXPECT_TRUE(std::isinf(f.at("device_seconds_to_1_10x")));
  EXPECT_EQ(f.at("false_accepts"), 1);
  EXPECT_EQ(f.at("false_rejects"), 1);
  EXPECT_EQ(f.at("agent_calls"), 7);
  EXPECT_EQ(f.at("agent_cost_usd"), 0.25);
  // A real target (no truth), no agent, and an older result without device time give none.
  const auto g = run_figures(result(1.2, 1.2, 4, 1));
  for (const char* absent :
       {"device_seconds", "device_seconds_to_1_10x", "false_accepts", "agent_calls"}) {
    EXPECT_FALSE(g.contains(absent)) << absent;
  }
}

TEST(AblateSummary, RunsThatNeverGetWithinARatioAreCountedAndTheMedianSaysNever) {
  store::TestTempDir tmp;
  StudySpec spec;
  spec.arms = {"full", "without-knowledge"};
  spec.runs = 3;
  const Study study = Study::create_or_open(tmp.path(), spec).value();
  for (int run = 0; run < 3; ++run) {
    auto full = result(1.1, 1.1, 4, 2);
    full["device_seconds"] = 20.0;
    full["device_seconds_to_1_25x"] = 10.0 + run;
    full["device_seconds_to_1_10x"] = nullptr;
    write_file_creating_folders(study.run_dir("full", run) / "result.json", full.dump());
    auto off = full;
    off["device_seconds_to_1_25x"] = run == 0 ? nlohmann::json(15.0) : nlohmann::json(nullptr);
    write_file_creating_folders(study.run_dir("without-knowledge", run) / "result.json",
                                off.dump());
  }
  const auto arms = summarize(study);
  const FigureSummary& full = arms[0].figures.at("device_seconds_to_1_25x");
  EXPECT_EQ(full.never, 0);
  EXPECT_EQ(full.median, 11.0);
  const FigureSummary& off = arms[1].figures.at("device_seconds_to_1_25x");
  EXPECT_EQ(off.never, 2);
  EXPECT_TRUE(std::isinf(off.median));
  EXPECT_FALSE(off.difference) << "no difference from an infinite median";
  const std::string md = render(study, arms, true);
  EXPECT_NE(md.find("| without-knowledge | 3 (2 never) | never |"), std::string::npos) << md;
  EXPECT_EQ(md.find("### false_accepts"), std::string::npos) << "no arm has truth: no table";
  EXPECT_EQ(to_json(arms)[1]["figures"]["device_seconds_to_1_25x"]["never"], 2);
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
