// The man page the build generates (`headway man`): it renders with man -l and describes every
// verb and option of the command line.
#include "cli/man_page.h"

#include <gtest/gtest.h>

#include <utility>

#include "cli/app.h"
#include "cli/cli_test_support.h"

namespace headway::cli {
namespace {

TEST(ManPage, EscapesWhatRoffTreatsSpecially) {
  EXPECT_EQ(roff_escape("a-b"), "a\\-b");
  EXPECT_EQ(roff_escape("C:\\dir"), "C:\\edir");
  EXPECT_EQ(roff_escape(".hidden\n'quoted\nplain"), "\\&.hidden\n\\&'quoted\nplain");
}

TEST(ManPage, TheBuiltPageRendersAndNamesEveryVerbAndOption) {
  const std::string page = file_text(HEADWAY_MAN_PAGE);
  const CliRun printed = run_headway({"man"});
  EXPECT_EQ(printed.exit_code, 0) << printed.err;
  EXPECT_EQ(printed.out, page);

  const CliRun man = run_split(
      "sh",
      {"-c", "LC_ALL=C MANWIDTH=200 MANPAGER=cat PAGER=cat man -l \"$1\"", "sh", HEADWAY_MAN_PAGE});
  ASSERT_TRUE(man.problem.empty()) << man.problem;
  ASSERT_EQ(man.exit_code, 0) << man.err;
  EXPECT_EQ(man.err, "");
  const std::string& text = man.out;
  EXPECT_NE(text.find("NAME"), std::string::npos) << text;
  EXPECT_NE(text.find("EXIT STATUS"), std::string::npos) << text;

  int exit_code = 0;
  const auto app = make_app(&exit_code);
  for (const CLI::App* verb :
       std::as_const(*app).get_subcommands([](const CLI::App*) { return true; })) {
    EXPECT_NE(text.find("headway " + verb->get_name()), std::string::npos) << verb->get_name();
    for (const CLI::Option* opt : verb->get_options()) {
      for (const auto& name : opt->get_lnames()) {
        EXPECT_NE(text.find("--" + name), std::string::npos) << verb->get_name() << " --" << name;
      }
    }
  }
  EXPECT_NE(text.find("--no-sandbox"), std::string::npos);
  EXPECT_NE(text.find("--version"), std::string::npos);
}

}  // namespace
}  // namespace headway::cli
