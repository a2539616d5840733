#include <fmt/format.h>

#include <cstdio>
#include <memory>
#include <nlohmann/json.hpp>
#include <string>

#include "agents/docs_agents.h"
#include "cli/agent_options.h"
#include "cli/cli_support.h"
#include "cli/verbs.h"
#include "knowledge/onboard.h"
#include "knowledge/workspace_target.h"

namespace headway::cli {

namespace {
struct OnboardArgs {
  std::string workspace;
  std::string docs;
  std::string summary;
  bool keep_facts = false;
  bool json = false;
  AgentArgs agent;
};

nlohmann::json report_json(const knowledge::OnboardReport& report, bool measured) {
  nlohmann::json skipped = nlohmann::json::array();
  for (const auto& s : report.docs_skipped)
    skipped.push_back({{"path", s.path}, {"reason", s.reason}});
  nlohmann::json summary = nullptr;
  if (!report.summary_from.empty()) {
    nlohmann::json totals = nlohmann::json::object();
    for (const auto& [verdict, count] : report.citations.totals()) {
      totals[std::string(knowledge::to_string(verdict))] = count;
    }
    summary = {{"from", report.summary_from},
               {"citations", report.citations.citations.size()},
               {"verdicts", totals},
               {"agent_passes", report.agent_passes},
               {"claims_supported", report.claims_supported},
               {"claims_left_out", report.claims_left_out}};
  }
  return {{"toolchain", report.toolchain},
          {"docs",
           {{"root", report.docs_root.string()},
            {"builtin", report.builtin_docs},
            {"files", report.docs_files},
            {"lines", report.docs_lines},
            {"skipped", skipped},
            {"change", report.docs_change}}},
          {"summary", summary},
          {"facts", {{"count", report.facts}, {"measured", measured}}},
          {"rules",
           {{"kernels", report.kernels},
            {"scanned", report.mined.scanned},
            {"new_rules", report.mined.new_rules},
            {"new_evidence", report.mined.new_evidence},
            {"total", report.rules}}},
          {"cheatsheet", report.cheatsheet.string()}};
}

int run_onboard(const OnboardArgs& args) {
  validate_agent_args(args.agent);
  store::Workspace ws = open_workspace_or_throw(args.workspace);
  knowledge::OnboardOptions options;
  // With --agent: the summarizer writes the summary (unless --summary gives one) and two judge
  // passes check it, after the script pass.
  AgentRun agent_run = start_agent_run(ws, args.agent);
  std::vector<std::unique_ptr<agents::AgentClaimJudge>> judges;
  if (agent_run) {
    const auto prompts = prompts_dir(ws);
    for (const char* name : {"agent-judge-1", "agent-judge-2"}) {
      judges.push_back(std::make_unique<agents::AgentClaimJudge>(*agent_run.ledger, name, prompts));
      options.judges.push_back(judges.back().get());
    }
    options.summarizer = fmt::format("{} (summarizer)", args.agent.spec);
    options.summarize = [&agent_run, &ws, prompts](const knowledge::Corpus& corpus) {
      agents::SummarizeOptions o;
      o.target = knowledge::workspace_target_name(ws);
      o.prompts_dir = prompts;
      o.log = [](const std::string& line) { fmt::print(stderr, "{}\n", line); };
      fmt::print(stderr, "summarizing {} docs files with {} ...\n", corpus.files.size(),
                 agent_run.agent->model());
      return agents::summarize_corpus(*agent_run.ledger, corpus, o);
    };
  }
  if (!args.docs.empty()) options.docs = args.docs;
  if (!args.summary.empty()) options.summary = args.summary;
  if (args.keep_facts) {
    options.measure = knowledge::list_facts(ws, knowledge::current_toolchain_id(ws)).empty();
  }
  if (options.measure) {
    fmt::print(stderr, "onboarding; measuring chip facts ...\n");
  }
  Result<knowledge::OnboardReport> report = invalid_input("");
  try {
    report = knowledge::onboard(ws, options);
  } catch (const agents::AgentError& e) {
    fail_with_agent_error(args.agent, e);
  }
  if (!report) fail_with(report.error());
  if (agent_run) fmt::print(stderr, "{}\n", agent_run_line(agent_run));
  if (args.json) {
    fmt::print("{}\n", report_json(*report, options.measure).dump(2));
    return kExitOk;
  }
  fmt::print("docs: {} ({}{} files, {} lines; {})\n", report->docs_root.string(),
             report->builtin_docs ? "the target's built-in docs, " : "", report->docs_files,
             report->docs_lines, report->docs_change);
  for (const auto& s : report->docs_skipped) fmt::print("  skipped {}: {}\n", s.path, s.reason);
  if (report->summary_from.empty()) {
    fmt::print("summary: no agent configured (offline) and no --summary given; nothing to check\n");
  } else {
    fmt::print("summary: {}\n", report->summary_from);
    fmt::print("citations: {}\n", report->citations.totals_line());
    fmt::print("{}\n", report->agent_passes);
    fmt::print("claims: {} supported by their cited text go into the cheat sheet, {} left out\n",
               report->claims_supported, report->claims_left_out);
  }
  fmt::print("toolchain: {}\n", report->toolchain);
  fmt::print("facts: {} {}\n", report->facts,
             options.measure ? "measured and stored" : "kept from an earlier measurement");
  fmt::print(
      "rules: {} failed nodes scanned in {} trees, {} new rules, {} new evidence; {} rules in "
      "all\n",
      report->mined.scanned, report->kernels, report->mined.new_rules, report->mined.new_evidence,
      report->rules);
  fmt::print("cheat sheet: {}\n", report->cheatsheet.string());
  return 0;
}
}  // namespace

void add_onboard(CLI::App& app, int* exit_code) {
  auto args = std::make_shared<OnboardArgs>();
  auto* cmd = app.add_subcommand("onboard",
                                 "Index the docs, check the cited summary, measure chip facts, "
                                 "mine rules, write the cheat sheet");
  cmd->add_option("--docs", args->docs,
                  "the target's docs folder (default: the workspace target's built-in docs)");
  cmd->add_option("--summary", args->summary,
                  "a cited summary of the docs (default: the built-in one with the built-in docs)");
  cmd->add_flag("--keep-facts", args->keep_facts,
                "measure chip facts only when the current toolchain has none");
  cmd->add_option("--workspace", args->workspace,
                  "workspace directory (default: the nearest one up from here)");
  cmd->add_flag("--json", args->json, "print one JSON object (progress goes to stderr)");
  add_agent_options(cmd, args->agent);
  cmd->callback([args, exit_code] { run_verb(exit_code, [&] { return run_onboard(*args); }); });
}

}  // namespace headway::cli
