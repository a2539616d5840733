#include "knowledge/onboard.h"

#include <fmt/format.h>

#include <fstream>

#include "search/design_tree.h"

namespace headway::knowledge {

namespace {
std::string cell(std::string text) {
  std::string out;
  for (char c : text) {
    if (c == '|') out += "\\|";
    else if (c == '\n') out += ' ';
    else out += c;
  }
  return out;
}
}  // namespace

std::string render_cheatsheet(store::Workspace& ws, const std::string& toolchain) {
  std::string md = "# Cheat sheet\n\n";
  md += fmt::format("Workspace: `{}`  \nCurrent toolchain: `{}`\n\n", ws.root().string(), toolchain);
  md += "## Chip facts\n\n| fact | value | unit | cv | toolchain | method |\n|---|---:|---|---:|---|---|\n";
  for (const Fact& f : list_facts(ws)) {
    md += fmt::format("| {} | {:.4f} | {} | {} | {} | {} |\n", cell(f.name), f.value, cell(f.unit),
                      f.spread ? fmt::format("{:.2f}%", *f.spread) : "", cell(f.toolchain), cell(f.method));
  }
  const auto rules = list_rules(ws);
  md += fmt::format("\n## Legality rules ({})\n\n", rules.size());
  for (const Rule& r : rules) {
    md += fmt::format("- **rule {}**: {}  \n  signature: `{}`  \n", r.id, cell(r.text), r.signature);
    for (const RuleStatus& s : r.statuses) md += fmt::format("  {} for `{}`  \n", to_string(s.state), s.toolchain);
    std::string ev;
    for (const RuleEvidence& e : r.evidence) ev += fmt::format("{}{}#{}", ev.empty() ? "" : ", ", e.kernel, e.node_id);
    md += fmt::format("  evidence: {}{}\n", ev.empty() ? "none" : ev, r.repro_hash ? fmt::format("; repro `{}`", *r.repro_hash) : "");
  }
  md += "\n## Summary\n\nsummary: no agent configured (offline)\n";
  return md;
}

store::Result<OnboardReport> onboard(store::Workspace& ws, const OnboardOptions& options) {
  OnboardReport report;
  report.toolchain = current_cpu_toolchain_id(ws);
  if (options.measure) measure_and_store_cpu_facts(ws, report.toolchain, options.measure_options);
  report.facts = static_cast<int>(list_facts(ws, report.toolchain).size());
  for (const auto& k : search::DesignTree::kernels(ws)) {
    auto mined = mine_rules_from_tree(ws, k.name);
    if (!mined) return store::Error{mined.error().message};
    ++report.kernels;
    report.mined.scanned += mined->scanned;
    report.mined.new_rules += mined->new_rules;
    report.mined.new_evidence += mined->new_evidence;
    report.mined.skipped += mined->skipped;
  }
  report.rules = static_cast<int>(list_rules(ws).size());
  const auto dir = ws.root() / ".headway" / "knowledge";
  std::error_code ec;
  std::filesystem::create_directories(dir, ec);
  if (ec) return store::Error{fmt::format("cannot create {}: {}", dir.string(), ec.message())};
  report.cheatsheet = dir / "cheatsheet.md";
  const std::string md = render_cheatsheet(ws, report.toolchain);
  const auto tmp = dir / "cheatsheet.md.tmp";
  {
    std::ofstream out(tmp, std::ios::binary);
    out.write(md.data(), static_cast<std::streamsize>(md.size()));
    if (!out) return store::Error{fmt::format("cannot write {}", tmp.string())};
  }
  std::filesystem::rename(tmp, report.cheatsheet, ec);
  if (ec) return store::Error{fmt::format("cannot write {}: {}", report.cheatsheet.string(), ec.message())};
  return report;
}

}  // namespace headway::knowledge
