#include "knowledge/claim_judge.h"

#include <fmt/format.h>

#include <algorithm>
#include <stdexcept>

#include "knowledge/citations.h"

namespace headway::knowledge {

ClaimJudge::~ClaimJudge() = default;

std::string_view to_string(Support support) {
  switch (support) {
    case Support::kContradicted:
      return "contradicted";
    case Support::kUnsupported:
      return "unsupported";
    case Support::kPartiallySupported:
      return "partially-supported";
    case Support::kFullySupported:
      return "fully-supported";
  }
  return "unknown";
}

std::map<Support, int64_t> AgentPasses::totals() const {
  std::map<Support, int64_t> counts;
  for (const auto& c : claims) ++counts[c.combined];
  return counts;
}

std::string AgentPasses::summary_line() const {
  if (skipped()) return "agent passes: skipped (no agent configured)";
  std::string names;
  for (const auto& j : judges) names += (names.empty() ? "" : ", ") + j;
  std::string out = fmt::format("agent passes ({}): {} claim{}:", names, claims.size(),
                                claims.size() == 1 ? "" : "s");
  const auto counts = totals();
  bool first = true;
  for (auto it = counts.rbegin(); it != counts.rend(); ++it) {
    out += fmt::format("{} {} {}", first ? "" : ",", it->second, to_string(it->first));
    first = false;
  }
  if (claims.empty()) out += " none judged";
  if (not_judged > 0) out += fmt::format("; {} not judged (broken citation)", not_judged);
  return out;
}

std::string cited_text_for_judges(const Claim& claim, const Corpus& corpus) {
  std::string text;
  for (const Citation& c : claim.citations) {
    const CorpusFile* file = corpus.find(c.path);
    if (file == nullptr || !broken_reason(corpus, c).empty()) {
      throw std::logic_error(fmt::format("cited_text_for_judges on broken citation {}", c.text));
    }
    text += c.first == c.last ? fmt::format("{}:L{}\n", c.path, c.first)
                              : fmt::format("{}:L{}-L{}\n", c.path, c.first, c.last);
    text += cited_lines(*file, c) + "\n";
  }
  return text;
}

AgentPasses run_agent_passes(const SummaryMarkup& summary, const Corpus& corpus,
                             const std::vector<ClaimJudge*>& judges) {
  AgentPasses out;
  for (ClaimJudge* judge : judges) {
    if (judge == nullptr) throw std::logic_error("run_agent_passes: null judge");
    out.judges.push_back(judge->name());
  }
  if (judges.empty()) return out;
  for (const Claim& claim : summary.claims) {
    const bool resolvable =
        std::all_of(claim.citations.begin(), claim.citations.end(),
                    [&](const Citation& c) { return broken_reason(corpus, c).empty(); });
    if (!resolvable) {
      ++out.not_judged;
      continue;
    }
    JudgedClaim judged;
    judged.line = claim.line;
    judged.claim = claim.text;
    for (const Citation& c : claim.citations) judged.cites.push_back(c.text);
    const std::string cited = cited_text_for_judges(claim, corpus);
    for (ClaimJudge* judge : judges) {
      judged.judgements.push_back(judge->judge(claim.text, cited));
      judged.combined = std::min(judged.combined, judged.judgements.back().support);
    }
    out.claims.push_back(std::move(judged));
  }
  return out;
}

}  // namespace headway::knowledge
