#include "cli/completion.h"

#include <fmt/format.h>

#include <vector>

namespace headway::cli {

namespace {

struct Command {
  std::string path;  // "" for the app itself, "docs index" for a nested subcommand
  std::vector<std::string> subcommands;
  std::vector<std::string> options;         // every option name, --long and -s
  std::vector<std::string> valued_options;  // those that take a value
};

std::string joined(const std::vector<std::string>& words) {
  std::string out;
  for (const auto& w : words) out += (out.empty() ? "" : " ") + w;
  return out;
}

void collect(const CLI::App& app, const std::string& path, std::vector<Command>& out) {
  Command c;
  c.path = path;
  for (const CLI::Option* opt : app.get_options()) {
    if (!opt->nonpositional()) continue;
    std::vector<std::string> names;
    for (const auto& n : opt->get_lnames()) names.push_back("--" + n);
    for (const auto& n : opt->get_snames()) names.push_back("-" + n);
    c.options.insert(c.options.end(), names.begin(), names.end());
    if (opt->get_expected_max() > 0)
      c.valued_options.insert(c.valued_options.end(), names.begin(), names.end());
  }
  const auto subs = app.get_subcommands([](const CLI::App* s) { return !s->get_name().empty(); });
  for (const CLI::App* sub : subs) c.subcommands.push_back(sub->get_name());
  out.push_back(c);
  for (const CLI::App* sub : subs) {
    collect(*sub, path.empty() ? sub->get_name() : path + " " + sub->get_name(), out);
  }
}

// A bash function `name PATH` that prints the words `pick` gives for each command path.
template <typename Pick>
std::string table(const std::string& name, const std::vector<Command>& commands, Pick pick) {
  std::string out = fmt::format("{}() {{\n  case \"$1\" in\n", name);
  for (const auto& c : commands) {
    const auto& words = pick(c);
    if (!words.empty()) out += fmt::format("    \"{}\") echo \"{}\" ;;\n", c.path, joined(words));
  }
  return out + "  esac\n}\n\n";
}

}  // namespace

std::string bash_completion(const CLI::App& app) {
  std::vector<Command> commands;
  collect(app, "", commands);
  const std::string cmd = app.get_name();
  const std::string fn = "_" + cmd;
  std::string out = fmt::format(
      "# bash completion for {0}: generated from its command line by `{0} completion bash`.\n"
      "# Installed as share/bash-completion/completions/{0}; or: source <({0} completion bash)\n\n",
      cmd);
  out += table(fn + "_subcommands", commands, [](const Command& c) { return c.subcommands; });
  out += table(fn + "_options", commands, [](const Command& c) { return c.options; });
  out += table(fn + "_valued", commands, [](const Command& c) { return c.valued_options; });
  out += fmt::format(R"bash(# True when word $2 is one of the words $1.
{0}_has() {{
  local w
  for w in $1; do [[ $w == "$2" ]] && return 0; done
  return 1
}}

{0}_files() {{
  if declare -F _filedir >/dev/null; then
    _filedir
  else
    local IFS=$'\n'
    COMPREPLY=($(compgen -f -- "$cur"))
  fi
}}

{0}() {{
  local cur prev words cword
  if declare -F _init_completion >/dev/null; then
    _init_completion || return
  else
    words=("${{COMP_WORDS[@]}}")
    cword=$COMP_CWORD
    cur=${{COMP_WORDS[COMP_CWORD]}}
    prev=${{COMP_WORDS[COMP_CWORD - 1]}}
  fi
  # The command path so far: the verbs named before the word being completed, skipping options
  # and their values.
  local path="" i w skip=0
  for ((i = 1; i < cword; i++)); do
    w=${{words[i]}}
    if ((skip)); then
      skip=0
    elif [[ $w == -* ]]; then
      {0}_has "$({0}_valued "$path")" "$w" && skip=1
    elif {0}_has "$({0}_subcommands "$path")" "$w"; then
      path=${{path:+$path }}$w
    fi
  done
  if ((cword > 1)) && {0}_has "$({0}_valued "$path")" "$prev"; then
    {0}_files
  elif [[ $cur == -* ]]; then
    COMPREPLY=($(compgen -W "$({0}_options "$path")" -- "$cur"))
  else
    COMPREPLY=($(compgen -W "$({0}_subcommands "$path")" -- "$cur"))
    ((${{#COMPREPLY[@]}})) || {0}_files
  fi
}}
complete -F {0} {1}
)bash",
                     fn, cmd);
  return out;
}

}  // namespace headway::cli
