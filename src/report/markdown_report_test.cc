#include "report/markdown_report.h"

#include <gtest/gtest.h>

#include "report/report_test_support.h"

namespace headway::report {
namespace {

TEST(MarkdownReport, SummaryTableAcceptedChangesAndTheRest) {
  const std::string md = render_markdown(sample_report());
  EXPECT_EQ(md.rfind("## headway report\n", 0), 0u);
  EXPECT_NE(md.find("**Geomean speedup 4x** over the baselines, 42 device seconds."),
            std::string::npos)
      << md;
  EXPECT_NE(md.find("| qkv | 8 | 2 | 4x | 1 | 2x | 0.5 | 4x | 3 | 1 | 42.0 | #2 design tiled "
                    "{\"tile\":64} |\n"),
            std::string::npos)
      << md;
  EXPECT_NE(md.find("### qkv: accepted changes\n\n- #2 design tiled {\"tile\":64} at "
                    "2026-11-30T11:30:00.000Z: 2 ms "
                    "(test #1 #2 vs #1: FASTER, 75.00% faster [+70.00%, +80.00%] in 2 pairs)\n"),
            std::string::npos)
      << md;
  EXPECT_NE(md.find("**Agents:** 1 calls"), std::string::npos);
  EXPECT_NE(md.find("**Calibration:** A/A calibration (aa.json)"), std::string::npos);
  Report empty = sample_report();
  empty.kernels.clear();
  empty.calibration = nullptr;
  const std::string none = render_markdown(empty);
  EXPECT_NE(none.find("No kernels yet"), std::string::npos);
  EXPECT_NE(none.find("no calibration given"), std::string::npos);
}

}  // namespace
}  // namespace headway::report
