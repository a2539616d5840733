#include "report/report_text.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <cmath>

namespace headway::report {

namespace {

std::string counts_text(const std::map<std::string, int64_t>& counts) {
  std::string out;
  for (const auto& [name, n] : counts)
    out += fmt::format("{}{} {}", out.empty() ? "" : ", ", n, name);
  return out.empty() ? "none" : out;
}

std::string pct(const nlohmann::json& value) {
  return value.is_number() ? fmt::format("{:.1f}%", 100 * value.get<double>()) : "n/a";
}

}  // namespace

std::string ms(double value) {
  return std::isfinite(value) ? fmt::format("{:.4g}", value) : std::string("-");
}

std::string times(double value) {
  return std::isfinite(value) ? fmt::format("{:.3g}x", value) : std::string("-");
}

std::string ms_interval(double value, const std::optional<MedianInterval>& interval, bool bimodal) {
  std::string out = ms(value);
  if (interval) out += fmt::format(" [{}, {}]", ms(interval->low), ms(interval->high));
  if (bimodal) out += " bimodal";
  return out;
}

std::string speedup_text(const KernelSummary& k) {
  return times(k.speedup) + (k.speedup_verdict() == "unresolved" ? " (not supported)" : "");
}

HeadsByModel heads_by_model(const std::vector<KernelReport>& kernels) {
  std::vector<const KernelSummary*> summaries;
  for (const auto& k : kernels) summaries.push_back(&k);
  return heads_by_model(summaries);
}

std::string unsupported_note(const std::vector<KernelReport>& kernels) {
  std::vector<std::string> names;
  for (const auto& k : kernels) {
    if (k.speedup_verdict() == "unresolved") names.push_back(k.name);
  }
  if (names.empty()) return "";
  return fmt::format(
      "Not supported: the speedup of {}. The 95% interval of its speedup from the last "
      "side-by-side "
      "timing holds 1, so the run cannot support a faster head there (the tests that made the head "
      "decide on paired readings until they are sure; the timing takes a fixed number).",
      fmt::join(names, ", "));
}

std::string decode_step_line(const DecodeStepSummary& step) {
  const bool layer = !step.attention.empty();
  return fmt::format(
      "decode {}: {} ms ({}, the heads' medians summed{}), {} the sum of the floors ({} ms); {} "
      "the baselines' {} ({} ms)",
      layer ? "layer" : "step", ms(step.head_ms),
      layer ? "qkv + " + step.attention + " + attn_out + ffn" : "qkv + attn_out + ffn",
      step.interval
          ? fmt::format("; interval {} to {}, at least {:.0f}% together", ms(step.interval->low),
                        ms(step.interval->high), 100 * step.interval->coverage)
          : "",
      times(step.ratio_to_floor()), ms(step.floor_ms), times(step.speedup()),
      layer ? "layer" : "step", ms(step.baseline_ms));
}

std::string node_label(const trees::Node& node) {
  std::string label = fmt::format("#{} {}", node.id, trees::to_string(node.kind));
  if (!node.design.empty()) label += " " + node.design;
  if (node.params.is_object() && !node.params.empty()) label += " " + node.params.dump();
  return label;
}

std::string test_line(const trees::TestRecord& t) {
  std::string line = fmt::format("#{} #{} vs #{}: ", t.id, t.candidate_node, t.head_node);
  if (!t.outcome) return line + "running";
  line += statistics::to_string(*t.outcome);
  if (t.effect_pct) {
    line += fmt::format(", {:.2f}% {}", std::fabs(*t.effect_pct),
                        *t.effect_pct >= 0 ? "faster" : "slower");
    if (t.ci_low && t.ci_high) line += fmt::format(" [{:+.2f}%, {:+.2f}%]", *t.ci_low, *t.ci_high);
  }
  return line + fmt::format(" in {} pairs", t.pairs);
}

std::string rule_config_line(const TestReport& t) {
  if (!t.config) {
    return t.record.rule == "betting" ? "too few readings to replay the wealth"
                                      : "the wealth is drawn for the betting rule only";
  }
  const auto& c = *t.config;
  std::string line = fmt::format("s0 {:.4g}, alpha {:g}, alpha_e {:g}, delta_e {:g}, cap {}", c.s0,
                                 c.alpha, c.alpha_e, c.delta_e, c.cap);
  if (t.config_source == "recorded") return line + " (recorded with the test)";
  return line +
         " (not recorded with this test: s0 estimated from its head readings, the rest at "
         "their defaults)";
}

std::string agents_line(const AgentTotals& a) {
  if (a.calls == 0) return "no agent calls: the design library proposed every candidate";
  return fmt::format(
      "{} calls, {} input and {} output tokens, ${:.2f}; {} candidates proposed, {} accepted",
      a.calls, a.input_tokens, a.output_tokens, a.cost_usd, a.candidates, a.accepted);
}

std::string knowledge_line(const KnowledgeCounts& k) {
  const std::string citations =
      k.citations ? "citations: " + counts_text(*k.citations)
                  : std::string("citations: none checked (no onboarding with a summary)");
  return fmt::format("{}; rules: {} ({}); facts: {}", citations, k.rules,
                     counts_text(k.rules_by_status), k.facts);
}

std::string calibration_line(const Report& r) {
  if (r.calibration.is_null()) {
    return "no calibration given: the workspace does not store `headway calibrate` results; "
           "pass its --json output with `headway report --calibration FILE`";
  }
  const auto& c = r.calibration;
  const double effect = c.value("effect_pct", 0.0);
  std::string line = fmt::format(
      "{} calibration ({}): target {}, rule {}, alpha {}, {} decisions: FASTER {} (95% upper "
      "bound {}), SLOWER {}, SAME {}, INCONCLUSIVE {}; {:.1f} pairs on average",
      effect == 0 ? "A/A" : fmt::format("known-effect ({:+g}%)", effect), r.calibration_from,
      c.value("target", std::string("?")), c.value("rule", std::string("?")),
      c.contains("alpha") ? c["alpha"].dump() : "?", c.value("decisions", 0),
      pct(c.value("faster_rate", nlohmann::json())),
      pct(c.value("faster_rate_upper95", nlohmann::json())),
      pct(c.value("slower_rate", nlohmann::json())), pct(c.value("same_rate", nlohmann::json())),
      pct(c.value("inconclusive_rate", nlohmann::json())), c.value("mean_pairs", 0.0));
  return line;
}

std::string evidence_text(const nlohmann::json& e) {
  if (e.is_null()) return "";
  std::string out;
  if (e.is_object()) {
    for (const char* key : {"diagnostics", "check", "reason"}) {
      if (e.contains(key) && e[key].is_string()) out += e[key].get<std::string>() + "\n\n";
    }
  }
  return out + e.dump(2);
}

}  // namespace headway::report
