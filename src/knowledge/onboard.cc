#include "knowledge/onboard.h"

#include <fmt/format.h>

#include <map>
#include <memory>
#include <stdexcept>
#include <utility>

#include "common/file_io.h"
#include "knowledge/citation_json.h"
#include "knowledge/citation_markup.h"
#include "knowledge/docs_index.h"
#include "knowledge/summary_file.h"
#include "knowledge/target_docs.h"
#include "trees/design_tree.h"

namespace headway::knowledge {

namespace fs = std::filesystem;

namespace {

std::string cell(const std::string& text) {
  std::string out;
  for (char c : text) {
    if (c == '|')
      out += "\\|";
    else if (c == '\n')
      out += ' ';
    else
      out += c;
  }
  return out;
}

// write_file_atomically as a Result.
Result<bool> write_atomically(const fs::path& path, const std::string& text) {
  try {
    write_file_atomically(path, text);
  } catch (const std::runtime_error& e) {
    return environment_error(e.what());
  }
  return true;
}

std::string change_line(const Indexing& indexing) {
  if (!indexing.previous) return "first index";
  std::string line = fmt::format("{} added, {} removed, {} changed", indexing.diff.added.size(),
                                 indexing.diff.removed.size(), indexing.diff.changed.size());
  if (!indexing.diff.reduced.empty()) {
    line += fmt::format(
        ", {} reduced anew (same bytes, other lines: `headway docs diff --summary "
        "FILE` shows where cited lines went)",
        indexing.diff.reduced.size());
  }
  return line + " since the previous index";
}

}  // namespace

fs::path knowledge_dir(const store::Workspace& ws) { return ws.root() / ".headway" / "knowledge"; }

SummaryDigest summary_digest(const std::string& summary_from, const SummaryMarkup& markup,
                             const CitationReport& report, const std::string& agent_passes) {
  SummaryDigest digest;
  std::map<std::pair<int64_t, int64_t>, const CitationResult*> by_position;
  for (const CitationResult& c : report.citations) by_position[{c.line, c.column}] = &c;
  std::string supported, left_out;
  for (const Claim& claim : markup.claims) {
    std::string cites, problems;
    for (const Citation& cite : claim.citations) {
      cites += (cites.empty() ? "" : " ") + cite.text;
      const auto it = by_position.find({cite.line, cite.column});
      if (it == by_position.end() || it->second->verdict == TextVerdict::kSupportedByText) continue;
      problems += fmt::format("{}{} {}: {}", problems.empty() ? "" : "; ", cite.text,
                              to_string(it->second->verdict), it->second->why);
    }
    if (problems.empty()) {
      ++digest.supported;
      supported += fmt::format("- {} {}\n", claim.text, cites);
    } else {
      ++digest.left_out;
      left_out += fmt::format("- line {}: {} ({})\n", claim.line, claim.text, problems);
    }
  }
  for (const MalformedCitation& m : markup.malformed) {
    ++digest.left_out;
    left_out += fmt::format("- line {}: malformed citation `{}` ({})\n", m.line, m.text, m.why);
  }
  std::string& md = digest.markdown;
  md = fmt::format("Summary: {}  \nScript check: {}  \n{}\n\n", summary_from, report.totals_line(),
                   agent_passes);
  md += fmt::format("### Claims supported by their cited text ({})\n\n{}", digest.supported,
                    supported.empty() ? "none\n" : supported);
  if (!left_out.empty())
    md += fmt::format("\n### Claims left out ({})\n\n{}", digest.left_out, left_out);
  return digest;
}

std::string render_cheatsheet(store::Workspace& ws, const std::string& toolchain,
                              const std::string& digest) {
  std::string md = "# Cheat sheet\n\n";
  md +=
      fmt::format("Workspace: `{}`  \nCurrent toolchain: `{}`\n\n", ws.root().string(), toolchain);
  md +=
      "## Chip facts\n\n| fact | value | unit | cv | toolchain | method "
      "|\n|---|---:|---|---:|---|---|\n";
  for (const Fact& f : list_facts(ws)) {
    md += fmt::format("| {} | {:.4f} | {} | {} | {} | {} |\n", cell(f.name), f.value, cell(f.unit),
                      f.spread ? fmt::format("{:.2f}%", *f.spread) : "", cell(f.toolchain),
                      cell(f.method));
  }
  // The instruction sets in one line each way: what candidates may use, what they may not.
  std::string have, lack;
  for (const Fact& f : list_facts(ws, toolchain)) {
    if (f.name.rfind(targets::kIsaPrefix, 0) != 0) continue;
    (f.value != 0.0 ? have : lack) +=
        " " + f.name.substr(std::string_view(targets::kIsaPrefix).size());
  }
  if (!have.empty() || !lack.empty()) {
    md += fmt::format(
        "\nInstruction sets candidates may use here (this chip, current toolchain):{}  \n"
        "Not available:{}\n",
        have.empty() ? " none" : have, lack.empty() ? " none" : lack);
  }
  const auto rules = list_rules(ws);
  md += fmt::format("\n## Legality rules ({})\n\n", rules.size());
  for (const Rule& r : rules) {
    md +=
        fmt::format("- **rule {}**: {}  \n  signature: `{}`  \n", r.id, cell(r.text), r.signature);
    if (r.detector) md += fmt::format("  detector: `{}`  \n", *r.detector);
    for (const RuleStatus& s : r.statuses)
      md += fmt::format("  {} for `{}`  \n", to_string(s.state), s.toolchain);
    std::string ev;
    for (const RuleEvidence& e : r.evidence)
      ev += fmt::format("{}{}#{}", ev.empty() ? "" : ", ", e.kernel, e.node_id);
    md += fmt::format("  evidence: {}{}\n", ev.empty() ? "none" : ev,
                      r.repro_hash ? fmt::format("; repro `{}`", *r.repro_hash) : "");
  }
  md += "\n## Summary\n\n";
  md +=
      digest.empty() ? "summary: no agent configured (offline); no summary was checked\n" : digest;
  return md;
}

Result<OnboardReport> onboard(store::Workspace& ws, const OnboardOptions& options) {
  OnboardReport report;
  const fs::path dir = knowledge_dir(ws);

  // Inputs first: nothing is written when they are bad.
  std::optional<std::string> summary;
  if (options.summary) {
    auto text = read_summary_file(*options.summary);
    if (!text) return text.error();
    summary = std::move(text).value();
    report.summary_from = options.summary->string();
  }
  std::optional<Corpus> corpus;
  if (options.docs) {
    auto read = read_corpus(*options.docs);
    if (!read) return read.error();
    corpus = std::move(read).value();
  }
  std::error_code ec;
  fs::create_directories(dir, ec);
  if (ec) return environment_error(fmt::format("cannot create {}: {}", dir.string(), ec.message()));

  auto opened = open_workspace_target(ws);
  if (!opened) return opened.error();
  const std::unique_ptr<targets::Target> target = std::move(opened).value();

  // 1. Corpus.
  if (!corpus) {
    const targets::TargetDocs docs = target->docs();
    auto written = write_target_docs(docs, dir / "target-docs");
    if (!written) return written.error();
    auto read = read_corpus(written.value());
    if (!read) return read.error();
    corpus = std::move(read).value();
    report.builtin_docs = true;
    if (!summary && !docs.summary.empty()) {
      summary = docs.summary;
      report.summary_from =
          fmt::format("built-in ({}), offline: no agent configured", docs.summary_path);
    }
  }
  if (!options.summary && options.summarize) {
    if (std::string written = options.summarize(*corpus); !written.empty()) {
      summary = std::move(written);
      report.summary_from = fmt::format(
          "written by {}", options.summarizer.empty() ? "an agent" : options.summarizer);
    }
  }
  auto indexing = index_corpus(ws, *corpus, utc_timestamp_now());
  if (!indexing) return indexing.error();
  report.docs_root = corpus->root;
  report.docs_files = static_cast<int>(corpus->files.size());
  report.docs_lines = corpus->line_count();
  report.docs_skipped = corpus->skipped;
  report.docs_change = change_line(indexing.value());

  // 2-3. Summary and its check.
  std::string digest;
  if (summary) {
    const SummaryMarkup markup = parse_summary(*summary);
    report.citations = check_citations(markup, *corpus);
    const AgentPasses passes = run_agent_passes(markup, *corpus, options.judges);
    report.agent_passes = passes.summary_line();
    const SummaryDigest d =
        summary_digest(report.summary_from, markup, report.citations, report.agent_passes);
    digest = d.markdown;
    report.claims_supported = d.supported;
    report.claims_left_out = d.left_out;
    const nlohmann::json verdicts = {{"summary", report.summary_from},
                                     {"docs", corpus->root.string()},
                                     {"citations", citations_json(report.citations)},
                                     {"totals", totals_json(report.citations)},
                                     {"agent_passes", agent_passes_json(passes)}};
    if (auto w = write_atomically(dir / "summary.md", *summary); !w) return w.error();
    if (auto w = write_atomically(dir / "citations.json", verdicts.dump(2) + "\n"); !w) {
      return w.error();
    }
  }

  // 4. Chip facts.
  report.toolchain = toolchain_id_of(*target);
  if (options.measure)
    measure_and_store_facts(ws, *target, report.toolchain, options.measure_options);
  report.facts = static_cast<int>(list_facts(ws, report.toolchain).size());

  // 5. Rules.
  for (const auto& k : trees::DesignTree::kernels(ws)) {
    auto mined = mine_rules_from_tree(ws, k.name);
    if (!mined) return mined.error();
    ++report.kernels;
    report.mined.scanned += mined->scanned;
    report.mined.new_rules += mined->new_rules;
    report.mined.new_evidence += mined->new_evidence;
    report.mined.skipped += mined->skipped;
  }
  report.rules = static_cast<int>(list_rules(ws).size());

  // 6. Cheat sheet.
  report.cheatsheet = dir / "cheatsheet.md";
  if (auto w = write_atomically(report.cheatsheet, render_cheatsheet(ws, report.toolchain, digest));
      !w) {
    return w.error();
  }
  return report;
}

}  // namespace headway::knowledge
