#pragma once
// An agent that answers from a recorded transcript, so that a run can be replayed without a
// provider (tests, demos, reproducing a fault).
//
// A transcript is JSON Lines: one object per call, in the order the calls were made. Blank lines
// are skipped. Fields:
//   "role"           string, required: the request's role;
//   "response"       string, required unless "error" is given: the reply's text;
//   "files"          object of path -> string: the reply's edited files (default none);
//   "model"          string (default "");
//   "input_tokens", "output_tokens"   integers >= 0 (default 0);
//   "latency_s"      number >= 0 (default 0); "attempts" integer >= 1 (default 1);
//   "truncated"      boolean (default false);
//   "error"          an AgentError kind as to_string writes it ("transient", "auth", "timeout",
//                    ...): the call failed so; "message" (string) is the error's text.
// Other fields are ignored. Answers are consumed in order per role: the k-th request of role R
// gets the k-th entry whose role is R, whatever the requests of other roles in between. The
// request's prompt and files are not compared with anything.
//
// A request of a role whose entries are used up throws AgentError kBadRequest ("the transcript
// has no 3rd answer for role designer (it holds 2)"): the run has diverged from the recording, so
// every later answer would be wrong too, and kBadRequest ends the run.
#include <cstddef>
#include <filesystem>
#include <map>
#include <mutex>
#include <optional>
#include <string>
#include <vector>

#include "agents/agent.h"

namespace headway::agents {

class ReplayAgent : public Agent {
 public:
  // Reads the whole transcript. Throws std::runtime_error naming the file and line
  // ("t.jsonl:3: ...") when the file cannot be read, a line is not a JSON object, or a field is
  // missing or of the wrong type, or an error kind is unknown.
  explicit ReplayAgent(const std::filesystem::path& transcript);
  std::string provider() const override { return "replay"; }
  std::string model() const override { return "replay:" + path_.string(); }
  AgentReply complete(const AgentRequest& request) override;  // thread-safe

  // How many entries of the role are not used yet.
  size_t remaining(const std::string& role) const;

 private:
  struct Entry {
    AgentReply reply;
    std::optional<AgentError> error;
  };
  std::filesystem::path path_;
  std::map<std::string, std::vector<Entry>> entries_;  // by role, in order
  mutable std::mutex mutex_;
  std::map<std::string, size_t> next_;  // by role: the next entry to answer with
};

// Appends one line recording `reply` as the answer to a request of `role`, with every field
// above, so that ReplayAgent reproduces the reply exactly. Creates the file. Thread-safe (one
// write per line, under a process-wide lock, to a file opened for appending). Throws
// std::runtime_error when the file cannot be written.
void append_transcript_entry(const std::filesystem::path& path, const std::string& role,
                             const AgentReply& reply);
// Appends one line recording that a request of `role` failed with `error`.
void append_transcript_error(const std::filesystem::path& path, const std::string& role,
                             const AgentError& error);

// "1st", "2nd", "3rd", "4th", ..., "11th", "12th", "13th", "21st", ...
std::string ordinal(size_t n);

}  // namespace headway::agents
