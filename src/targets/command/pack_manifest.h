#pragma once
// The command target's manifest: a TOML file that describes a toolchain reached only through
// shell commands (docs/TARGETS.md has the format). parse_manifest reads and validates it before
// anything runs: unknown keys, a missing required command, a parser without an example output or
// one that does not match its example, a design that does not parse in the kernel language are
// errors naming the file and line at fault.
#include <cstdint>
#include <filesystem>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "common/result.h"
#include "targets/command/output_parser.h"
#include "targets/kernel_language.h"

namespace headway::command {

// One configured command. `run` is a bash command line; "{pack}" in it is the manifest's folder,
// "{arms}" (the time command only) the arms' folders, space-separated and quoted.
struct CommandSpec {
  std::string name;  // build, check, static_cost, time, toolchain_version
  std::string run;
  double timeout_seconds = 60.0;
  std::vector<std::pair<std::string, std::string>> env;  // set for the command, in order
  bool sandbox = true;                                   // runs inside the sandbox
  std::optional<OutputParser> parser;                    // what to read from its output
  int line = 0;                                          // where the table starts, for messages
};

// When a failed time job is the device's fault rather than the candidate's: it is retried.
struct RetryPolicy {
  std::optional<std::string> output_regex;  // searched in the job's output
  std::vector<int> exit_codes;              // any of these exit codes
  int max_attempts = 3;                     // attempts per job, the first included
};

struct KernelEntry {
  std::string name;   // a built-in kernel (qkv, attn_out, ffn) or one the manifest declares
  std::string file;   // the repository file a single-file candidate replaces; its content is
                      // the baseline
  std::string entry;  // the kernel's entry point in the repository, for the commands
  std::optional<uint64_t> bytes;  // bytes the kernel must move (default: the contract's; required
                                  // for a declared kernel without a spec)
  std::filesystem::path spec;     // a kernel spec (kernels/kernel_spec.h), absolute; empty: none
};

struct PackManifest {
  std::filesystem::path path;         // the manifest file (absolute)
  std::filesystem::path pack;         // its folder
  std::string name;                   // the toolchain's name, e.g. "standin"
  std::filesystem::path repo;         // the user's kernel repository (absolute)
  std::filesystem::path docs;         // docs for onboarding (absolute; may not exist: no docs)
  std::filesystem::path designs;      // the design library: <designs>/<kernel>/<design>.<ext>
  std::vector<std::string> editable;  // globs (repository-relative) a candidate may change
  // [language]: the kernel files' comment and how design parameters are set; headway writes only
  // the kernel's code into a file (strip_design_header).
  targets::KernelLanguage language = {"//", targets::KernelLanguage::Params::kDefine, true};
  std::vector<std::filesystem::path> read_only;  // extra paths the sandbox shows read-only
  double read_gbps = 0.0;                        // the device's memory bandwidth: the floors
  std::string time_unit = "seconds";             // seconds, ms, us, ns or cycles
  double clock_hz = 0.0;                         // cycles per second, when time_unit is cycles
  int max_arms = 8;                              // arms per time job
  bool shares_host = false;  // the time command runs the kernel on this machine's own cores
  int64_t budget_jobs = 0;   // 0: no limit
  double budget_device_minutes = 0.0;  // 0: no limit
  RetryPolicy retry;
  std::map<std::string, KernelEntry> kernels;
  std::map<std::string, CommandSpec> commands;

  const CommandSpec* command(const std::string& command_name) const;
  // Seconds in one reading of `value` time units.
  double seconds_per_unit() const;
};

// Parses and validates the manifest at `path`. Errors are one line: "FILE:LINE: message".
Result<PackManifest> parse_manifest(const std::filesystem::path& path);

}  // namespace headway::command
