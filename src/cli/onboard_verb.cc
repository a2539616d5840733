#include <fmt/format.h>

#include <cstdio>
#include <memory>
#include <string>

#include "cli/cli_support.h"
#include "cli/verbs.h"
#include "knowledge/onboard.h"

namespace headway::cli {

namespace {
struct OnboardArgs {
  std::string workspace;
};

int run_onboard(const OnboardArgs& args) {
  store::Workspace ws = open_workspace_or_throw(args.workspace);
  fmt::print("measuring chip facts ...\n");
  std::fflush(stdout);
  auto report = knowledge::onboard(ws);
  if (!report) throw UsageError(report.error().message);
  fmt::print("toolchain: {}\n", report->toolchain);
  fmt::print("facts: {} measured and stored\n", report->facts);
  fmt::print("rules: {} failed nodes scanned in {} trees, {} new rules, {} new evidence; {} rules in all\n",
             report->mined.scanned, report->kernels, report->mined.new_rules,
             report->mined.new_evidence, report->rules);
  fmt::print("summary: no agent configured (offline)\n");
  fmt::print("cheat sheet: {}\n", report->cheatsheet.string());
  return 0;
}
}  // namespace

void add_onboard(CLI::App& app, int* exit_code) {
  auto args = std::make_shared<OnboardArgs>();
  auto* cmd = app.add_subcommand("onboard", "Measure chip facts, mine legality rules, write the cheat sheet");
  cmd->add_option("--workspace", args->workspace,
                  "workspace directory (default: the nearest one up from here)");
  cmd->callback([args, exit_code] { run_verb(exit_code, [&] { return run_onboard(*args); }); });
}

}  // namespace headway::cli
