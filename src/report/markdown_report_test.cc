#include "report/markdown_report.h"

#include <gtest/gtest.h>

#include "report/report_test_support.h"

namespace headway::report {
namespace {

TEST(MarkdownReport, SummaryTableAcceptedChangesAndTheRest) {
  const std::string md = render_markdown(sample_report());
  EXPECT_EQ(md.rfind("## headway report\n", 0), 0u);
  EXPECT_NE(md.find("**Geomean speedup 4x** over the baselines, 42 device seconds. 3 "
                    "decisions, 257.1 a device-hour; timed calls 50% of the device time outside "
                    "the screen."),
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

TEST(MarkdownReport, EachRunsPoolHasARowPerWorker) {
  Report r = sample_report();
  EXPECT_EQ(render_markdown(r).find("Device pools"), std::string::npos);
  r.pools = {sample_pool()};
  const std::string md = render_markdown(r);
  EXPECT_NE(
      md.find("### Device pools\n\nslurm pool of 2 devices (run ended "
              "2026-11-30T12:00:00.000Z): 10 jobs; busy 65% of the 2.3 device-minutes held\n"
              "\n| worker | node | jobs | held s | busy s | busy |\n|---|---|---:|---:|---:|---:|\n"
              "| w1 | dev1 | 7 | 98.0 | 60.0 | 61% |\n| w2 | dev2 | 3 | 40.0 | 30.0 | 75% |\n"),
      std::string::npos)
      << md;
}

TEST(MarkdownReport, LeadsWithTheDecodeStepAndSaysWhatTheRunCannotSupport) {
  Report r = sample_report();
  r.decode_step = DecodeStepSummary{3.0, 9.0, 1.5, MedianInterval{2.8, 3.3, 0, 0.85}, ""};
  KernelReport& k = r.kernels.front();
  k.baseline_interval = MedianInterval{7.0, 9.0, 2, 0.98};
  k.head_interval = MedianInterval{1.5, 7.5, 2, 0.98};  // overlaps the baseline's
  k.head_bimodal = true;
  k.speedup_interval = ratio_interval(*k.baseline_interval, *k.head_interval);
  const std::string md = render_markdown(r);
  const std::string lead =
      "**decode step: 3 ms (qkv + attn_out + ffn, the heads' medians summed; interval 2.8 to "
      "3.3, at least 85% together), 2x the sum of the floors (1.5 ms); 3x the baselines' step "
      "(9 ms).**";
  EXPECT_NE(md.find(lead), std::string::npos) << md;
  EXPECT_LT(md.find(lead), md.find("**Geomean speedup")) << "the step leads the summary";
  r.decode_layers = {DecodeStepSummary{4.0, 12.0, 2.0, std::nullopt, "attn_decode@sliding"},
                     DecodeStepSummary{9.0, 90.0, 6.0, std::nullopt, "attn_decode@global32k"}};
  const std::string with_layer = render_markdown(r);
  const std::string layer =
      "**decode layer: 4 ms (qkv + attn_decode@sliding + attn_out + ffn, the heads' medians "
      "summed), 2x the sum of the floors (2 ms); 3x the baselines' layer (12 ms).**";
  const std::string global =
      "**decode layer: 9 ms (qkv + attn_decode@global32k + attn_out + ffn, the heads' medians "
      "summed), 1.5x the sum of the floors (6 ms); 10x the baselines' layer (90 ms).**";
  EXPECT_NE(with_layer.find(layer), std::string::npos) << with_layer;
  EXPECT_LT(with_layer.find(layer), with_layer.find(global)) << "the shape sets in their order";
  EXPECT_LT(with_layer.find(global), with_layer.find(lead)) << "the layers lead the step";
  r.decode_layers.clear();
  EXPECT_NE(md.find("| qkv | 8 [7, 9] | 2 [1.5, 7.5] bimodal | 4x (not supported) |"),
            std::string::npos)
      << md;
  EXPECT_NE(md.find("Not supported: the speedup of qkv."), std::string::npos) << md;
  // Intervals apart: the speedup stands without a mark or a note.
  k.head_interval = MedianInterval{1.8, 2.2, 2, 0.98};
  k.speedup_interval = ratio_interval(*k.baseline_interval, *k.head_interval);
  const std::string supported = render_markdown(r);
  EXPECT_NE(supported.find("| 4x | 1 |"), std::string::npos) << supported;
  EXPECT_EQ(supported.find("Not supported"), std::string::npos) << supported;
}

}  // namespace
}  // namespace headway::report
