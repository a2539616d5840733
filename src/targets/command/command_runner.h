#pragma once
// Runs one of the manifest's commands: `bash -c RUN` in a working folder, inside the sandbox
// (unless the command says sandbox = false), with the command's time limit and environment.
// "{pack}" in RUN becomes the manifest's folder and "{arms}" the arms' folders (quoted, in order).
// The environment holds HEADWAY_PACK, HEADWAY_REPO and what the caller adds (HEADWAY_KERNEL,
// HEADWAY_ENTRY, HEADWAY_SEED, HEADWAY_JOB, HEADWAY_ARMS), then the command's own variables.
#include <filesystem>
#include <string>
#include <utility>
#include <vector>

#include "common/subprocess.h"
#include "pool/device_pool.h"
#include "targets/command/pack_manifest.h"

namespace headway::command {

struct CommandCall {
  std::filesystem::path working_folder;     // writable in the sandbox
  std::vector<std::filesystem::path> arms;  // read-only in the sandbox, "{arms}"
  std::vector<std::pair<std::string, std::string>> env;
};

// The command line after placeholder expansion.
std::string expand_command(const PackManifest& manifest, const CommandSpec& command,
                           const std::vector<std::filesystem::path>& arms);

// The command as a device pool's job (pool/pool_job.h): inside the sandbox unless the command
// says sandbox = false. `label` names it in logs and status.
pool::PoolJob command_job(const PackManifest& manifest, const CommandSpec& command,
                          const CommandCall& call, std::string label);

// Runs the command here, or on a device of `device` when one is given. Throws
// sandbox::Unavailable when the sandbox is required and cannot be set up, and
// targets::DeviceStopped when the pool can run no more jobs.
ProcessResult run_command(const PackManifest& manifest, const CommandSpec& command,
                          const CommandCall& call, pool::DevicePool* device = nullptr);

// One line for people about a run that failed: "exited with status 2", "timed out after 60 s", ...
std::string describe_failure(const ProcessResult& result, double timeout_seconds);

}  // namespace headway::command
