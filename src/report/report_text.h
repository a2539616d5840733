#pragma once
// The short texts the HTML and Markdown reports share: figures, node and test labels, and the
// one-line summaries of agents, knowledge and calibration.
#include <string>
#include <vector>

#include "report/report_model.h"

namespace headway::report {

std::string ms(double value);     // "1.234" (4 significant digits), "-" when not finite
std::string times(double value);  // "12.3x", "-" when not finite

// A median with what the run supports: "0.5123 [0.5, 0.53]" (the 95% interval of the median)
// plus " bimodal" for bimodal readings; ms(value) alone without an interval.
std::string ms_interval(double value, const std::optional<MedianInterval>& interval, bool bimodal);
// The speedup, with " (not supported)" when the intervals of baseline and head overlap
// (KernelSummary::speedup_verdict() "unresolved").
std::string speedup_text(const KernelSummary& k);
// The note under a table where some speedup is not supported; empty when none is.
std::string unsupported_note(const std::vector<KernelReport>& kernels);
// The kernels' heads by the device model their figures were read on (heads_by_model).
HeadsByModel heads_by_model(const std::vector<KernelReport>& kernels);
// "decode step: 2.345 ms (the heads' medians summed; 95%-per-kernel interval 2.3 to 2.4, at least
// 85% together), 3.21x the sum of the floors (0.7305 ms); 1.8x the baselines' step (4.2 ms)"
std::string decode_step_line(const DecodeStepSummary& step);
// "#5 design tiled {"tile":64}"
std::string node_label(const trees::Node& node);
// "#3 #7 vs #1: FASTER, 12.3% faster [8.1%, 15.0%] in 6 pairs" (unfinished: "running").
std::string test_line(const trees::TestRecord& test);
// "s0 0.0123, alpha 0.05, alpha_e 0.1, delta_e 0.01, cap 24 (recorded with the test)", or why
// there is no wealth.
std::string rule_config_line(const TestReport& test);
// "3 calls, 21000 input and 900 output tokens, $0.12; 2 candidates, 1 accepted", or that no
// agent was used.
std::string agents_line(const AgentTotals& agents);
// "citations: 12 supported-by-text, 1 unsupported; rules: 3 verified; 24 facts"
std::string knowledge_line(const KnowledgeCounts& knowledge);
// The A/A (or known-effect) calibration given to the report, or that none was.
std::string calibration_line(const Report& report);
// A node's evidence for people: its diagnostics or check description first, then the rest.
std::string evidence_text(const nlohmann::json& evidence);

}  // namespace headway::report
