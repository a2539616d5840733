#pragma once
// The git command line, for what headway writes into a user's repository (headway export): git is
// run as a program, in a folder, never through a shell.
#include <filesystem>
#include <string>
#include <vector>

#include "common/result.h"

namespace headway {

// Runs `git ARGS` in `dir` with no pager, no prompt and a fixed identity for commits it makes
// (headway <headway@localhost>): git's standard output and error, trimmed of its last newline,
// or an environment error naming the command and carrying git's message (git missing, or a
// non-zero exit).
Result<std::string> run_git(const std::filesystem::path& dir, const std::vector<std::string>& args);

// Whether `dir` is inside a git work tree.
bool is_git_work_tree(const std::filesystem::path& dir);

}  // namespace headway
