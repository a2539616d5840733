#include "agents/docs_agents.h"

#include <fmt/format.h>

#include "agents/kernel_prompt.h"
#include "agents/prompt_template.h"
#include "agents/response_parse.h"
#include "knowledge/citation_markup.h"

namespace headway::agents {
namespace {

std::optional<knowledge::Support> support_of(const std::string& verdict) {
  for (const auto s :
       {knowledge::Support::kContradicted, knowledge::Support::kUnsupported,
        knowledge::Support::kPartiallySupported, knowledge::Support::kFullySupported}) {
    if (knowledge::to_string(s) == verdict) return s;
  }
  return std::nullopt;
}

}  // namespace

knowledge::Judgement AgentClaimJudge::judge(const std::string& claim, const std::string& cited) {
  AgentRequest request;
  request.role = "judge";
  request.prompt = render_template(load_template(prompts_dir_, "judge"),
                                   {{"claim", claim}, {"cited", cited}}, prompts_dir_);
  request.max_tokens = 1024;
  CallRecord call;
  try {
    call = ledger_.call(request);
  } catch (const BudgetSpent& e) {
    return {knowledge::Support::kUnsupported, fmt::format("{}: no verdict: {}", name_, e.what())};
  }
  if (call.error) {
    return {knowledge::Support::kUnsupported,
            fmt::format("{}: no verdict: {}: {}", name_, to_string(call.error->kind()),
                        call.error->what())};
  }
  const ParsedVerdict v = parse_verdict(call.reply->text);
  const auto support = v.ok() ? support_of(v.verdict) : std::nullopt;
  if (!support) {
    const std::string reason = v.ok() ? "unknown verdict " + v.verdict : v.malformed;
    ledger_.set_outcome(call.id, "malformed", reason);
    return {knowledge::Support::kUnsupported,
            fmt::format("{}: malformed verdict: {}", name_, reason)};
  }
  ledger_.set_outcome(call.id, "verdict", v.verdict);
  return {*support, v.why};
}

std::string summarize_corpus(AgentLedger& ledger, const knowledge::Corpus& corpus,
                             const SummarizeOptions& options) {
  const auto say = [&](const std::string& line) {
    if (options.log) options.log(line);
  };
  std::string summary;
  for (const auto& file : corpus.files) {
    std::string numbered;
    for (size_t i = 0; i < file.lines.size(); ++i)
      numbered += fmt::format("L{}: {}\n", i + 1, file.lines[i]);
    const std::string shown = cut_to(numbered, options.max_chars_per_chapter);
    AgentRequest request;
    request.role = "summarizer";
    request.prompt = render_template(load_template(options.prompts_dir, "summarizer"),
                                     {{"target", options.target},
                                      {"path", file.path},
                                      {"numbered", shown},
                                      {"cut", shown.size() < numbered.size()}},
                                     options.prompts_dir);
    CallRecord call;
    try {
      call = ledger.call(request);
    } catch (const BudgetSpent& e) {
      say(fmt::format("summarizer: {}; {} and the chapters after it are not summarized", e.what(),
                      file.path));
      break;
    }
    if (call.error) {
      say(fmt::format("summarizer: {}: {}: {}", file.path, to_string(call.error->kind()),
                      call.error->what()));
      continue;
    }
    const std::string& text = call.reply->text;
    const knowledge::SummaryMarkup markup = knowledge::parse_summary(text);
    if (markup.claims.empty()) {  // a claim has at least one citation
      const std::string reason =
          markup.malformed.empty()
              ? "no cited claim"
              : fmt::format("no cited claim ({} malformed citations)", markup.malformed.size());
      ledger.set_outcome(call.id, "malformed", reason);
      say(fmt::format("summarizer: {}: malformed: {}", file.path, reason));
      continue;
    }
    ledger.set_outcome(call.id, "summary", fmt::format("{} claims", markup.claims.size()));
    summary += text;
    if (!summary.empty() && summary.back() != '\n') summary += '\n';
    summary += '\n';
  }
  return summary;
}

}  // namespace headway::agents
