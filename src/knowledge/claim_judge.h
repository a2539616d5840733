#pragma once
// The agent passes of the cited-summary check: judges (LLM agents in the product, fakes in tests)
// read each claim with the text it cites and say how well that text supports it.
//
// Every judge sees every claim whose citations all resolve (claims with a broken citation are
// left to the script pass) and sees only the claim and its cited text, never another judge's
// answer, so two judges make two independent passes. A claim's combined support is the weakest
// of its judges' (contradicted < unsupported < partially-supported < fully-supported).
#include <cstdint>
#include <map>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "knowledge/citation_markup.h"
#include "knowledge/corpus.h"

namespace headway::knowledge {

// Ordered from weakest to strongest support.
enum class Support { kContradicted, kUnsupported, kPartiallySupported, kFullySupported };
// "contradicted", "unsupported", "partially-supported", "fully-supported".
std::string_view to_string(Support support);

struct Judgement {
  Support support = Support::kUnsupported;
  std::string why;
};

class ClaimJudge {
 public:
  virtual ~ClaimJudge();
  virtual std::string name() const = 0;
  // claim: the claim's text; cited: each cited range as "path:L12-L18\n<its lines>\n", in the
  // claim's citation order. May be called from one thread at a time only.
  virtual Judgement judge(const std::string& claim, const std::string& cited) = 0;
};

struct JudgedClaim {
  int64_t line = 0;
  std::string claim;
  std::vector<std::string> cites;     // the citations as written
  std::vector<Judgement> judgements;  // one per judge, in the judges' order
  Support combined = Support::kFullySupported;
};

struct AgentPasses {
  std::vector<std::string> judges;  // names; empty: no agent configured, nothing was judged
  std::vector<JudgedClaim> claims;  // in summary order
  int64_t not_judged = 0;           // claims left out because a citation is broken

  bool skipped() const { return judges.empty(); }
  // Claims per combined support; absent when zero.
  std::map<Support, int64_t> totals() const;
  // "agent passes: skipped (no agent configured)" or
  // "agent passes (judge-a, judge-b): 12 claims: 10 fully-supported, 2 partially-supported".
  std::string summary_line() const;
};

// The text a judge sees for a claim (see ClaimJudge::judge); requires no broken citation.
std::string cited_text_for_judges(const Claim& claim, const Corpus& corpus);

// Runs every judge on every claim whose citations all resolve. No judges: skipped.
AgentPasses run_agent_passes(const SummaryMarkup& summary, const Corpus& corpus,
                             const std::vector<ClaimJudge*>& judges);

}  // namespace headway::knowledge
