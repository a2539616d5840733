#include <fmt/format.h>

#include "cli/cli_support.h"
#include "cli/man_page.h"
#include "cli/verbs.h"
#include "common/build_info.h"

namespace headway::cli {

void add_man(CLI::App& app, int* exit_code) {
  auto* cmd = app.add_subcommand("man", "Print the man page (roff): man -l <(headway man)");
  cmd->callback([&app, exit_code] {
    run_verb(exit_code, [&] {
      fmt::print("{}", man_page(app, version_label()));
      return kExitOk;
    });
  });
}

}  // namespace headway::cli
