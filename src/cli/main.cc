// headway: the command line (cli/app.h), and a report of the signal it may die of.
#include <cstdio>

#include "cli/app.h"
#include "common/crash_report.h"

int main(int argc, char** argv) {
  headway::install_crash_report("headway");
  // Standard output is line-buffered wherever it goes: on a pipe or a file too (where the C
  // library would buffer it in blocks), so that a long verb's lines arrive as they are printed
  // (`scripts/run.sh > log`, `headway ... | tee`) and in order with standard error's (`2>&1`).
  // Standard error stays unbuffered. Before anything is printed, as setvbuf requires.
  std::setvbuf(stdout, nullptr, _IOLBF, BUFSIZ);
  int exit_code = 0;
  const auto app = headway::cli::make_app(&exit_code);
  return headway::cli::run_app(*app, argc, argv, exit_code);
}
