#pragma once
// Bash completion for a CLI11 command line, generated from its definition: verbs (and their
// subcommands), each one's options, and which options take a value. The script follows Debian's
// bash-completion conventions: it defines _headway and registers it with `complete -F`; it uses
// bash-completion's _init_completion and _filedir where they are loaded and plain bash otherwise.
// Option values and positional arguments complete as file names.
#include <CLI/CLI.hpp>
#include <string>

namespace headway::cli {

// The completion script for `app`, whose name is the command being completed.
std::string bash_completion(const CLI::App& app);

}  // namespace headway::cli
