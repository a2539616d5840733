#pragma once
// Onboarding a workspace to its target and current toolchain (knowledge/workspace_target.h), in
// order:
//   1. corpus: the docs folder (--docs; default the target's own docs (Target::docs), written to
//      <workspace>/.headway/knowledge/target-docs) is read and indexed (docs_index.h);
//   2. summary: a cited summary of the docs. An agent writes it when one is configured; offline
//      the given summary is used, else the built-in one when the docs are the built-in docs, else
//      there is none and onboarding says so and goes on;
//   3. citation check: the script pass (citations.h) and the agent passes of the given judges
//      (none offline: skipped);
//   4. chip facts: the target's microbenchmarks, stored for the toolchain (facts.h);
//   5. rules: legality rules mined from every kernel's Design Tree (rules.h);
//   6. the cheat sheet <workspace>/.headway/knowledge/cheatsheet.md: facts, rules with their
//      status per toolchain, and the summary digest (the claims every citation of which is
//      supported-by-text, with the citations; the others listed with their verdicts). The checked
//      summary and its verdicts are kept beside it as summary.md and citations.json.
// Inputs (the docs folder, the summary) are read before anything is written: bad input is an
// error that leaves the workspace as it was. Every file is replaced atomically.
#include <filesystem>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "common/result.h"
#include "knowledge/citations.h"
#include "knowledge/claim_judge.h"
#include "knowledge/corpus.h"
#include "knowledge/facts.h"
#include "knowledge/rules.h"
#include "store/workspace.h"

namespace headway::knowledge {

struct OnboardOptions {
  bool measure = true;  // false: keep the stored facts (tests, re-runs)
  targets::FactOptions measure_options;
  std::optional<std::filesystem::path> docs;     // nullopt: the workspace target's own docs
  std::optional<std::filesystem::path> summary;  // nullopt: see step 2
  std::vector<ClaimJudge*> judges;               // the agent passes; empty offline
  // Step 2 with an agent: when set and no summary is given, writes the summary from the corpus
  // (empty: it wrote none, and the offline choice stands). summarizer names it for the report.
  std::function<std::string(const Corpus&)> summarize;
  std::string summarizer;
};

struct OnboardReport {
  std::string toolchain;  // the current toolchain id
  std::filesystem::path docs_root;
  bool builtin_docs = false;
  int docs_files = 0;
  int64_t docs_lines = 0;
  std::vector<SkippedFile> docs_skipped;
  std::string docs_change;   // "first index" or "N added, N removed, N changed"
  std::string summary_from;  // the summary's path, "built-in (...)", or empty: none
  CitationReport citations;  // empty when there was no summary
  std::string agent_passes;  // AgentPasses::summary_line()
  int claims_supported = 0;  // claims in the digest
  int claims_left_out = 0;   // claims and malformed citations left out of it
  int facts = 0;             // facts of that toolchain after measuring
  int kernels = 0;           // trees scanned
  MineSummary mined;         // summed over kernels
  int rules = 0;             // rules in the workspace afterwards
  std::filesystem::path cheatsheet;
};

// The folder onboarding keeps its files in: <workspace>/.headway/knowledge.
std::filesystem::path knowledge_dir(const store::Workspace& ws);

// The cheat sheet's Markdown for the workspace's current state. digest: the summary section's
// body (SummaryDigest::markdown), or empty when there is no summary.
std::string render_cheatsheet(store::Workspace& ws, const std::string& toolchain,
                              const std::string& digest = "");

struct SummaryDigest {
  std::string markdown;  // origin and totals, the supported claims with their citations, then
                         // the claims left out with each problem citation's verdict and reason
  int supported = 0;     // claims every citation of which is supported-by-text
  int left_out = 0;      // other claims, plus malformed citations
};
SummaryDigest summary_digest(const std::string& summary_from, const SummaryMarkup& markup,
                             const CitationReport& report, const std::string& agent_passes);

// Does the six steps above. An error for a docs folder that cannot be read, a summary that is
// not readable text, a file that cannot be written, or a target not available in this build.
Result<OnboardReport> onboard(store::Workspace& ws, const OnboardOptions& options = {});

}  // namespace headway::knowledge
