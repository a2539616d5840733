#include <fmt/format.h>

#include <memory>
#include <string>

#include "cli/cli_support.h"
#include "cli/completion.h"
#include "cli/verbs.h"

namespace headway::cli {

void add_completion(CLI::App& app, int* exit_code) {
  auto shell = std::make_shared<std::string>();
  auto* cmd = app.add_subcommand(
      "completion", "Print the shell completion script (bash): source <(headway completion bash)");
  cmd->add_option("shell", *shell, "the shell: bash")->required();
  cmd->callback([&app, shell, exit_code] {
    run_verb(exit_code, [&] {
      if (*shell != "bash")
        throw UsageError(fmt::format("no completion for shell '{}' (bash)", *shell));
      fmt::print("{}", bash_completion(app));
      return kExitOk;
    });
  });
}

}  // namespace headway::cli
