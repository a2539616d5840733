#include "common/git.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "common/subprocess.h"

namespace headway {

Result<std::string> run_git(const std::filesystem::path& dir,
                            const std::vector<std::string>& args) {
  CommandSpec spec;
  spec.argv = {"git",
               "-c",
               "user.name=headway",
               "-c",
               "user.email=headway@localhost",
               "-c",
               "commit.gpgsign=false"};
  spec.argv.insert(spec.argv.end(), args.begin(), args.end());
  spec.cwd = dir.string();
  spec.environment = {{"GIT_PAGER", "cat"}, {"GIT_TERMINAL_PROMPT", "0"}};
  spec.timeout_seconds = 120.0;
  const CommandResult r = run_command(spec);
  const std::string what = fmt::format("git {} (in {})", fmt::join(args, " "), dir.string());
  if (!r.started) return environment_error(fmt::format("cannot run {}: {}", what, r.error));
  if (r.timed_out) return environment_error(what + " ran past 120 s");
  if (r.exit_code != 0) {
    std::string message = r.err_tail.empty() ? r.out : r.err_tail;
    while (!message.empty() && message.back() == '\n') message.pop_back();
    return environment_error(fmt::format("{} failed: {}", what, message));
  }
  std::string out = r.out;
  while (!out.empty() && out.back() == '\n') out.pop_back();
  return out;
}

bool is_git_work_tree(const std::filesystem::path& dir) {
  const auto inside = run_git(dir, {"rev-parse", "--is-inside-work-tree"});
  return inside && inside.value() == "true";
}

}  // namespace headway
