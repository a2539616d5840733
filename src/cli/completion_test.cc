// The bash completion the build generates (`headway completion bash`), loaded into a real bash
// the way bash-completion loads it, and asked to complete.
#include "cli/completion.h"

#include <gtest/gtest.h>

#include <utility>

#include "cli/app.h"
#include "cli/cli_test_support.h"

namespace headway::cli {
namespace {

// The words bash offers for the command line `line` (completing its last word, which may be
// empty), one per line, sorted.
std::string complete(const std::string& script, const std::string& line) {
  const std::string program =
      "source \"$1\" || exit 9\n"
      "read -ra COMP_WORDS <<< \"$2\"\n"
      "[[ $2 == *' ' ]] && COMP_WORDS+=('')\n"
      "COMP_CWORD=$((${#COMP_WORDS[@]} - 1))\n"
      "COMP_LINE=$2 COMP_POINT=${#2}\n"
      "_headway headway \"${COMP_WORDS[COMP_CWORD]}\" \"${COMP_WORDS[COMP_CWORD - 1]}\"\n"
      "printf '%s\\n' \"${COMPREPLY[@]}\" | LC_ALL=C sort\n";
  const CliRun r =
      run_split("bash", {"--norc", "--noprofile", "-c", program, "bash", script, line});
  EXPECT_TRUE(r.problem.empty()) << r.problem;
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(r.err, "");
  return r.out;
}

TEST(BashCompletion, TheBuiltScriptIsValidBashAndMatchesTheVerb) {
  // bash -n: it parses; the script the build generated is the one `headway completion bash` prints.
  const CliRun syntax = run_split("bash", {"-n", HEADWAY_BASH_COMPLETION});
  EXPECT_EQ(syntax.exit_code, 0) << syntax.err;
  const CliRun printed = run_headway({"completion", "bash"});
  EXPECT_EQ(printed.exit_code, 0) << printed.err;
  EXPECT_EQ(printed.out, file_text(HEADWAY_BASH_COMPLETION));
  EXPECT_NE(printed.out.find("complete -F _headway headway\n"), std::string::npos);
  const CliRun fish = run_headway({"completion", "fish"});
  EXPECT_EQ(fish.exit_code, 2);
  EXPECT_EQ(fish.err, "headway: no completion for shell 'fish' (bash)\n");
}

TEST(BashCompletion, CompletesVerbsSubcommandsAndOptions) {
  const std::string script = HEADWAY_BASH_COMPLETION;
  EXPECT_EQ(complete(script, "headway op"), "optimize\n");
  EXPECT_EQ(complete(script, "headway check"), "check\ncheck-citations\n");
  EXPECT_EQ(complete(script, "headway --no-sandbox st"), "status\n");
  EXPECT_EQ(complete(script, "headway docs "), "diff\nindex\nshow\n");
  EXPECT_EQ(complete(script, "headway tree qkv --f"), "--format\n");
  EXPECT_EQ(complete(script, "headway optimize --budget 5m --ke"), "--kernels\n");
  EXPECT_EQ(complete(script, "headway status --"),
            "--help\n--interval\n--json\n--watch\n--workspace\n");
  EXPECT_EQ(complete(script, "headway --v"), "--version\n");
  // Every verb the command line defines is offered at the start.
  const std::string verbs = complete(script, "headway ");
  int exit_code = 0;
  const auto app = make_app(&exit_code);
  for (const CLI::App* sub :
       std::as_const(*app).get_subcommands([](const CLI::App*) { return true; })) {
    EXPECT_NE(verbs.find(sub->get_name() + "\n"), std::string::npos) << sub->get_name() << "\n"
                                                                     << verbs;
  }
}

TEST(BashCompletion, OptionValuesCompleteAsFileNames) {
  store::TestTempDir dir;
  { std::ofstream(dir.path() / "kernel_a.cc") << "// a\n"; }
  const std::string prefix = (dir.path() / "kernel_").string();
  EXPECT_EQ(complete(HEADWAY_BASH_COMPLETION, "headway check --source " + prefix),
            prefix + "a.cc\n");
}

}  // namespace
}  // namespace headway::cli
