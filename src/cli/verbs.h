#pragma once
// Every `headway <verb>` lives in its own src/cli/<verb>_verb.cc and registers itself here.
// Contract: add_<verb>(app, exit_code) adds a CLI11 subcommand to `app`; when the user picks it,
// its callback runs the verb and stores the process exit code in *exit_code
// (0 success, 1 a negative result such as an incorrect kernel, 2 usage or input errors).
// Verbs call parts (kernels, targets, measure, ...); parts never call the cli.
#include <CLI/CLI.hpp>

namespace headway::cli {
void add_check(CLI::App& app, int* exit_code);
void add_bench(CLI::App& app, int* exit_code);
void add_compare(CLI::App& app, int* exit_code);
void add_optimize(CLI::App& app, int* exit_code);
void add_status(CLI::App& app, int* exit_code);
void add_init(CLI::App& app, int* exit_code);
void add_tree(CLI::App& app, int* exit_code);
void add_calibrate(CLI::App& app, int* exit_code);
void add_docs(CLI::App& app, int* exit_code);
void add_check_citations(CLI::App& app, int* exit_code);
void add_facts(CLI::App& app, int* exit_code);
void add_rules(CLI::App& app, int* exit_code);
void add_migrate(CLI::App& app, int* exit_code);
void add_onboard(CLI::App& app, int* exit_code);
}  // namespace headway::cli
