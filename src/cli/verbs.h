#pragma once
// Every `headway <verb>` lives in its own src/cli/<verb>_verb.cc and registers itself here.
// Contract: add_<verb>(app, exit_code) adds a CLI11 subcommand to `app`; when the user picks it,
// its callback runs the verb and stores the process exit code in *exit_code
// (cli_support.h: 0 success, 1 a negative result such as an incorrect kernel, 2 usage or input
// errors, 3 an environment problem). With --json a verb prints one JSON object (docs/CLI.md) on
// stdout and its progress and warnings on stderr.
// Verbs call parts (kernels, targets, measure, ...); parts never call the cli.
#include <CLI/CLI.hpp>
#include <string>

namespace headway::cli {
void add_check(CLI::App& app, int* exit_code);
void add_bench(CLI::App& app, int* exit_code);
void add_compare(CLI::App& app, int* exit_code);
void add_export(CLI::App& app, int* exit_code);
void add_optimize(CLI::App& app, int* exit_code);
void add_status(CLI::App& app, int* exit_code);
void add_init(CLI::App& app, int* exit_code);
void add_tree(CLI::App& app, int* exit_code);
void add_calibrate(CLI::App& app, int* exit_code);
void add_docs(CLI::App& app, int* exit_code);
void add_check_citations(CLI::App& app, int* exit_code);
void add_facts(CLI::App& app, int* exit_code);
void add_rules(CLI::App& app, int* exit_code);
void add_kernel(CLI::App& app, int* exit_code);
void add_migrate(CLI::App& app, int* exit_code);
void add_onboard(CLI::App& app, int* exit_code);
void add_version(CLI::App& app, int* exit_code);
void add_agents(CLI::App& app, int* exit_code);
void add_report(CLI::App& app, int* exit_code);
void add_worker(CLI::App& app, int* exit_code);
void add_device_job(CLI::App& app, int* exit_code);
void add_ablate(CLI::App& app, int* exit_code);
// `completion` and `man` describe `app` itself: add them last.
void add_completion(CLI::App& app, int* exit_code);
void add_man(CLI::App& app, int* exit_code);

// "headway 0.1.0 (commit 1a2b3c4d5e6f, GNU 12.2.0, workspace schema 5)": what --version prints.
std::string version_line();
}  // namespace headway::cli
