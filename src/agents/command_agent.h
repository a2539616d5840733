#pragma once
// An agent that is a shell command: a coding-agent CLI (`claude -p`, `codex exec`,
// `aider --message-file "$HEADWAY_PROMPT_FILE"`) or any program that reads a prompt and answers.
//
// Each request runs `/bin/sh -c <command>` once, in a fresh scratch directory that holds the
// request's files and nothing else, with:
//   standard input      the prompt text: the system prompt, a blank line, then the prompt (just
//                       the prompt when the system prompt is empty);
//   HEADWAY_ROLE        the request's role;
//   HEADWAY_PROMPT_FILE a file, outside the scratch directory, holding the same prompt text;
//   the rest of the environment inherited from this process.
// The command runs in its own process group; at the time limit the whole group is killed, and
// when the command exits whatever it left running in the group is killed too.
//
// The reply: text is the command's stdout (at most stdout_limit bytes; `truncated` is set when it
// wrote more), files are the request files whose contents the command changed. Files the command
// created are ignored. A request file the command deleted (or turned into something that is not
// a readable file) is an error of kind kMalformed: the reply cannot say "deleted", and a CLI that
// removes the file it was asked to edit has not done what it was asked. max_tokens is not passed
// on (a CLI has its own settings); tokens are reported as 0. Both temporary directories are
// removed before complete() returns.
//
// Errors: a file path that request_path_problem refuses -> kBadRequest; the scratch
// directory cannot be made or written, or the command cannot be started, exits non-zero or is
// killed by a signal -> kCommand (with the exit status and the tail of its stderr); the time
// limit -> kTimeout.
#include <cstddef>
#include <filesystem>
#include <string>

#include "agents/agent.h"

namespace headway::agents {

struct CommandAgentOptions {
  std::string command;  // run with /bin/sh -c
  // Where the scratch and prompt directories are made; empty: $TMPDIR, else /tmp.
  std::filesystem::path scratch_parent;
  double timeout_seconds = 600.0;
  size_t stdout_limit = 4u << 20;
  size_t stderr_tail = 4u << 10;  // how much of stderr's end an error message quotes
};

class CommandAgent : public Agent {
 public:
  explicit CommandAgent(CommandAgentOptions options);
  std::string provider() const override { return "cmd"; }
  std::string model() const override { return options_.command; }
  AgentReply complete(const AgentRequest& request) override;

 private:
  CommandAgentOptions options_;
};

// Empty when `path` may name a request file (not empty, relative, no ".." component, not naming a
// directory such as "a/" or "."), else why not.
std::string request_path_problem(const std::string& path);

}  // namespace headway::agents
