#include <cstdio>
#include <exception>

#include "cli/verbs.h"

int main(int argc, char** argv) {
  CLI::App app{"headway: teaches itself an accelerator, then optimizes kernels on it"};
  app.require_subcommand(1);
  int exit_code = 0;
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
  } catch (const CLI::ParseError& e) {
    const int rc = app.exit(e);
    return rc == 0 ? 0 : 2;
  } catch (const std::exception& e) {
    std::fprintf(stderr, "headway: %s\n", e.what());
    return 2;
  }
  return exit_code;
}
