#include "ablate/study_plots.h"

#include <gtest/gtest.h>

#include <cmath>

#include "ablate/study_html.h"
#include "common/file_io.h"
#include "store/test_temp_dir.h"

namespace headway::ablate {
namespace {

// Two kernels: a (floor 1 ms) from 4 ms to 2 ms at 10 device seconds, b (floor 2 ms) from 8 ms
// to 4 ms at 5.
nlohmann::json curved_result() {
  return {{"device_seconds", 20.0},
          {"kernels",
           {{{"name", "a"}, {"floor_ms", 1.0}, {"curve", {{0.0, 4.0}, {10.0, 2.0}}}},
            {{"name", "b"}, {"floor_ms", 2.0}, {"curve", {{0.0, 8.0}, {5.0, 4.0}}}}}}};
}

TEST(AblatePlots, ARunsRatioOverDeviceTimeIsTheGeomeanOfItsKernelsHeadsThen) {
  const auto r = ratio_over_device_time(curved_result(), {0, 4.9, 5, 10, 30});
  ASSERT_TRUE(r);
  ASSERT_EQ(r->size(), 5u);
  EXPECT_NEAR((*r)[0], 4.0, 1e-12);
  EXPECT_NEAR((*r)[1], 4.0, 1e-12);
  EXPECT_NEAR((*r)[2], std::sqrt(8.0), 1e-12);
  EXPECT_NEAR((*r)[3], 2.0, 1e-12);
  EXPECT_NEAR((*r)[4], 2.0, 1e-12) << "after its last change a run's heads stand";
  auto no_floor = curved_result();
  no_floor["kernels"][1]["floor_ms"] = nullptr;
  EXPECT_FALSE(ratio_over_device_time(no_floor, {0}));
  auto no_curve = curved_result();
  no_curve["kernels"][0].erase("curve");
  EXPECT_FALSE(ratio_over_device_time(no_curve, {0}));
}

TEST(AblatePlots, TheStudysPlotsHaveALinePerArmAndBarsOnlyWithTruth) {
  store::TestTempDir tmp;
  StudySpec spec;
  spec.arms = {"full", "without-racing"};
  spec.runs = 2;
  const Study study = Study::create_or_open(tmp.path(), spec).value();
  EXPECT_FALSE(ratio_curve_plot(study)) << "no run yet";
  for (int run = 0; run < 2; ++run) {
    write_file_creating_folders(study.run_dir("full", run) / "result.json", curved_result().dump());
  }
  const auto curve = ratio_curve_plot(study);
  ASSERT_TRUE(curve);
  EXPECT_NE(curve->find("title 'full (2 runs)'"), std::string::npos) << *curve;
  EXPECT_EQ(curve->find("without-racing"), std::string::npos) << "an arm without runs: no line";
  EXPECT_NE(curve->find("set xrange [0:20]"), std::string::npos) << *curve;
  EXPECT_FALSE(truth_errors_plot(summarize(study), study)) << "no run has truth";

  auto judged = curved_result();
  judged["truth"] = {{"judged", 5}, {"false_accepts", 2}, {"true_gains", 3}, {"false_rejects", 1}};
  write_file_creating_folders(study.run_dir("without-racing", 0) / "result.json", judged.dump());
  const auto errors = truth_errors_plot(summarize(study), study);
  ASSERT_TRUE(errors);
  EXPECT_NE(errors->find("0 \"without-racing\" 2 1"), std::string::npos) << *errors;

  const std::string html = study_html(study, summarize(study));
  EXPECT_EQ(html.rfind("<!DOCTYPE html>", 0), 0u);
  size_t svgs = 0;
  for (size_t at = html.find("<svg"); at != std::string::npos; at = html.find("<svg", at + 1))
    ++svgs;
  EXPECT_EQ(svgs, 2u) << "the curve and the false accepts";
  EXPECT_NE(html.find("device_seconds"), std::string::npos) << "the summary's tables";
}

}  // namespace
}  // namespace headway::ablate
