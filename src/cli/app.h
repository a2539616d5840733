#pragma once
// The headway command line as one CLI11 definition: the global options and every verb. main runs
// it; the bash completion (completion.h) and the man page (man_page.h) are generated from it, so
// they list exactly what the parser accepts.
#include <CLI/CLI.hpp>
#include <memory>

namespace headway::cli {

// The whole command line. A verb's callback stores the process exit status in *exit_code, which
// must outlive the app.
std::unique_ptr<CLI::App> make_app(int* exit_code);

// Parses argv and runs the chosen verb; returns the process exit status (docs/CLI.md). Every
// error is one line "headway: ..." on stderr; --help and --version print to stdout and return 0.
int run_app(CLI::App& app, int argc, char** argv, const int& exit_code);

}  // namespace headway::cli
