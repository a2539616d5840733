#pragma once
// The agents of onboarding: the summarizer writes a cited summary of the target's docs, one
// chapter (corpus file) per call, in headway's citation syntax (knowledge/citation_markup.h);
// the citation judge gives a claim and the lines it cites a verdict (knowledge/claim_judge.h),
// two of them making two independent passes. Prompts: prompts/summarizer.mustache and
// prompts/judge.mustache. Every call goes through the run's ledger.
#include <filesystem>
#include <functional>
#include <string>

#include "agents/agent_ledger.h"
#include "knowledge/claim_judge.h"
#include "knowledge/corpus.h"

namespace headway::agents {

// A judge pass by an agent. An answer that is not a verdict (agents/response_parse.h), a failed
// call or a spent budget counts as "unsupported" with the reason as its why (a claim no judge
// could support is left out of the digest); the call is stored with its outcome. An AgentError
// fatal for the run is rethrown.
class AgentClaimJudge final : public knowledge::ClaimJudge {
 public:
  AgentClaimJudge(AgentLedger& ledger, std::string name, std::filesystem::path prompts_dir = {})
      : ledger_(ledger), name_(std::move(name)), prompts_dir_(std::move(prompts_dir)) {}
  std::string name() const override { return name_; }
  knowledge::Judgement judge(const std::string& claim, const std::string& cited) override;

 private:
  AgentLedger& ledger_;
  std::string name_;
  std::filesystem::path prompts_dir_;
};

struct SummarizeOptions {
  std::string target;                 // the target's name, for the prompt
  std::filesystem::path prompts_dir;  // the workspace's template overrides
  size_t max_chars_per_chapter =
      40000;  // a longer chapter is shown up to here (said in the prompt)
  std::function<void(const std::string&)> log;
};

// The cited summary of every file of `corpus`, in path order: one summarizer call per file, its
// lines numbered as citations count them. An answer with no cited claim (or a malformed citation
// only) is stored as malformed and left out; a failed call or a spent budget leaves its chapter
// out, said in the log. Empty when no chapter was summarized. An AgentError fatal for the run is
// rethrown.
std::string summarize_corpus(AgentLedger& ledger, const knowledge::Corpus& corpus,
                             const SummarizeOptions& options);

}  // namespace headway::agents
