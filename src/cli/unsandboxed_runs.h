#pragma once
// The workspace's record of headway runs that ran candidate code without the sandbox
// (`headway --no-sandbox ...`), which `headway status` reports.
#include <cstdint>
#include <filesystem>
#include <string>
#include <string_view>

#include "store/workspace.h"

namespace headway::cli {

struct UnsandboxedRuns {
  int64_t count = 0;
  std::string last_at;  // UTC, ISO 8601; empty when count is 0
  std::string last_command;
};

// Appends one run.
void record_unsandboxed_run(store::Workspace& ws, std::string_view command);
UnsandboxedRuns unsandboxed_runs(store::Workspace& ws);
// "N runs of candidate code were not sandboxed; last at T (COMMAND)"; empty when count is 0.
std::string describe(const UnsandboxedRuns& runs);

// Makes the first unsandboxed run of candidate code in this process (sandbox::wrap in kDisabled
// mode) append one row, with `command`, to the workspace at root (replacing an earlier call's
// workspace). A failure to record is reported on stderr and does not stop the run.
void record_unsandboxed_runs_in(const std::filesystem::path& root, std::string command);

// The command line of this headway process, for the record (set by main).
void set_invocation(std::string command);
const std::string& invocation();

}  // namespace headway::cli
