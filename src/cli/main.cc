#include <cstdio>
#include <exception>
#include <filesystem>
#include <string>
#include <system_error>

#include "cli/cli_support.h"
#include "cli/unsandboxed_runs.h"
#include "cli/verbs.h"
#include "common/sandbox.h"

int main(int argc, char** argv) {
  CLI::App app{"headway: teaches itself an accelerator, then optimizes kernels on it"};
  app.require_subcommand(1);
  int exit_code = 0;
  std::string command = "headway";
  for (int i = 1; i < argc; ++i) command += std::string(" ") + argv[i];
  headway::cli::set_invocation(command);
  // Takes effect as soon as it is parsed: before the verb runs.
  app.add_flag_callback(
         "--no-sandbox",
         [&command] {
           headway::sandbox::set_mode(headway::sandbox::Mode::kDisabled);
           std::fprintf(stderr,
                        "headway: warning: --no-sandbox: candidate code runs without isolation\n");
           // Recorded in the workspace found from here, unless the verb opens another one.
           std::error_code ec;
           const auto here = std::filesystem::current_path(ec);
           if (ec) return;
           if (auto root = headway::store::Workspace::locate(here)) {
             headway::cli::record_unsandboxed_runs_in(*root, command);
           }
         },
         "run candidate code without the sandbox (bubblewrap): no isolation, a warning on every "
         "run and in `headway status`")
      ->trigger_on_parse();
  headway::cli::add_init(app, &exit_code);
  headway::cli::add_check(app, &exit_code);
  headway::cli::add_bench(app, &exit_code);
  headway::cli::add_compare(app, &exit_code);
  headway::cli::add_optimize(app, &exit_code);
  headway::cli::add_status(app, &exit_code);
  headway::cli::add_tree(app, &exit_code);
  headway::cli::add_calibrate(app, &exit_code);
  headway::cli::add_docs(app, &exit_code);
  headway::cli::add_check_citations(app, &exit_code);
  headway::cli::add_facts(app, &exit_code);
  headway::cli::add_rules(app, &exit_code);
  headway::cli::add_migrate(app, &exit_code);
  headway::cli::add_onboard(app, &exit_code);

  try {
    app.parse(argc, argv);
  } catch (const headway::sandbox::Unavailable& e) {
    std::fprintf(stderr, "headway: %s\n", headway::cli::sandbox_refusal(e.what()).c_str());
    return headway::cli::kSandboxExit;
  } catch (const CLI::ParseError& e) {
    const int rc = app.exit(e);
    return rc == 0 ? 0 : 2;
  } catch (const std::exception& e) {
    std::fprintf(stderr, "headway: %s\n", e.what());
    return 2;
  }
  return exit_code;
}
