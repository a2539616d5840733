#include "report/markdown_report.h"

#include <fmt/format.h>

#include <filesystem>
#include <sstream>

#include "report/report_text.h"

namespace headway::report {

namespace {

// A table cell: pipes escaped, newlines as spaces.
std::string cell(const std::string& text) {
  std::string out;
  for (char c : text) {
    if (c == '|') {
      out += "\\|";
    } else if (c == '\n') {
      out += ' ';
    } else {
      out += c;
    }
  }
  return out;
}

}  // namespace

std::string render_markdown(const Report& r) {
  std::string out = "## headway report\n\n";
  out += fmt::format("Workspace `{}`, target {}, toolchain `{}`; generated {} by headway {}.\n\n",
                     r.workspace, r.target, r.toolchain, r.generated_at, r.headway);
  for (const auto& layer : r.decode_layers) out += "**" + decode_step_line(layer) + ".**\n\n";
  if (r.decode_step) out += "**" + decode_step_line(*r.decode_step) + ".**\n\n";
  out += fmt::format(
      "**Geomean speedup {}** over the baselines, {:.0f} device seconds. {} decisions, {:.1f} a "
      "device-hour; timed calls {:.0f}% of the device time outside the screen.\n\n",
      times(r.geomean_speedup), r.device_seconds, r.decision_rate.decisions,
      r.decision_rate.per_device_hour, 100 * r.decision_rate.timed_share);
  out +=
      "| kernel | baseline ms | head ms | speedup | floor ms | x floor | decode ms | x decode | "
      "nodes | tests | device s | head |\n"
      "|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---|\n";
  for (const auto& k : r.kernels) {
    const NodeReport* head = k.node(k.head_node);
    out += fmt::format("| {}{} | {} | {} | {} | {} | {} | {} | {} | {} | {} | {:.1f} | {} |\n",
                       cell(k.name), k.remeasured ? "*" : "",
                       ms_interval(k.baseline_ms, k.baseline_interval, k.baseline_bimodal),
                       ms_interval(k.head_ms, k.head_interval, k.head_bimodal), speedup_text(k),
                       ms(k.floor_ms), times(k.ratio_to_floor()), ms(k.decode_ms),
                       times(k.ratio_to_decode()), k.nodes.size(), k.tests.size(), k.device_seconds,
                       head ? cell(node_label(head->node)) : "");
  }
  if (r.kernels.empty()) out += "\nNo kernels yet: run `headway optimize`.\n";
  if (const std::string note = unsupported_note(r.kernels); !note.empty()) {
    out += "\n" + note + "\n";
  }
  if (const std::string line = heads_by_model_line(heads_by_model(r.kernels)); !line.empty()) {
    out += "\n" + line + ".\n";
  }
  out += "\n";
  for (const auto& k : r.kernels) {
    if (k.heads.size() < 2) continue;
    out += fmt::format("### {}: accepted changes\n\n", k.name);
    for (size_t i = 1; i < k.heads.size(); ++i) {
      const auto& h = k.heads[i];
      const NodeReport* n = k.node(h.node_id);
      std::string how = "made head without a test";
      for (const auto& t : k.tests) {
        if (h.test_id && t.record.id == *h.test_id) how = "test " + test_line(t.record);
      }
      out += fmt::format("- {} at {}: {} ms ({})\n", n ? node_label(n->node) : "?", h.since,
                         h.median_ms ? ms(*h.median_ms) : "-", how);
    }
    out += "\n";
  }
  if (!r.exports.empty()) out += "### Exported heads\n\n";
  for (const auto& e : r.exports) {
    out += fmt::format("- **{}**{}, head node {}: {}\n\n", cell(e.kernel),
                       e.commit.empty()
                           ? fmt::format(" in `{}`", e.path)
                           : fmt::format(" as commit `{}` (`{}`)", e.commit.substr(0, 12),
                                         std::filesystem::path(e.path).filename().string()),
                       e.node, e.subject);
    out += "  ```text\n";
    std::istringstream lines(e.evidence);
    for (std::string line; std::getline(lines, line);) out += "  " + line + "\n";
    out += "  ```\n\n";
  }
  if (!r.pools.empty()) out += "### Device pools\n\n";
  for (const auto& p : r.pools) {
    out += pool_use_line(p) +
           "\n\n| worker | node | jobs | held s | busy s | busy |\n"
           "|---|---|---:|---:|---:|---:|\n";
    for (const auto& w : p.workers) {
      const double held = w.held_seconds(p.elapsed_s);
      out += fmt::format("| {} | {} | {} | {:.1f} | {:.1f} | {} |\n", cell(w.name), cell(w.node),
                         w.jobs, held, w.busy_seconds(),
                         held > 0 ? fmt::format("{:.0f}%", 100 * w.busy_seconds() / held) : "-");
    }
    out += "\n";
  }
  out += "**Agents:** " + agents_line(r.agents) + "\n\n";
  out += "**Knowledge:** " + knowledge_line(r.knowledge) + "\n\n";
  out += "**Calibration:** " + calibration_line(r) + "\n";
  if (r.unsandboxed_runs > 0) {
    out += fmt::format("\n**Warning:** {} run(s) ran candidate code without the sandbox.\n",
                       r.unsandboxed_runs);
  }
  return out;
}

}  // namespace headway::report
