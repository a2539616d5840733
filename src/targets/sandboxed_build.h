#pragma once
// The build step the cpu and cuda targets share: a toolchain run in the sandbox
// (common/sandbox.h) over one candidate, its output cached under a hash of everything it depends
// on. A fresh scratch folder under the cache folder holds the inputs and is the only writable
// place; the output is built there and moved into the cache folder from outside, so it appears
// atomically and a failed or interrupted build leaves nothing behind. An identical key is built
// once: a later call returns the cached file without running anything.
#include <filesystem>
#include <functional>
#include <string>
#include <utility>
#include <vector>

#include "common/sandbox.h"
#include "common/subprocess.h"
#include "targets/target.h"

namespace headway::targets {

struct SandboxedBuild {
  std::string key;              // what the output depends on: toolchain id, flags, source, headers
  std::string extension;        // of the cached file, e.g. ".so"
  std::vector<DocFile> inputs;  // written into the scratch folder under their relative paths
  std::string output;           // the file the tool writes in the scratch folder
  // The command, given the scratch folder's absolute path.
  std::function<std::vector<std::string>(const std::filesystem::path& scratch)> argv;
  std::string tool;  // for messages, e.g. "the compiler", "nvcc"
  sandbox::Limits limits;
  // Variables set for the tool besides the sandbox's own; "{scratch}" in a value is replaced by
  // the scratch folder's path.
  std::vector<std::pair<std::string, std::string>> environment;
  // Folders the tool may read besides the system ones and the scratch folder.
  std::vector<std::filesystem::path> read_only;
  double timeout_seconds = 120.0;
};

// Where run_sandboxed_build keeps (or finds) the build's output.
std::filesystem::path cached_output(const SandboxedBuild& build,
                                    const std::filesystem::path& cache_dir);

// Runs the build (or finds it cached) in cache_dir. The outcome's artifact has the key's hash as
// its id and the cached file as its path; its meta is the caller's to fill. kToolchainMissing
// when the tool cannot be started (in the sandbox or at all); kCompileError with the tool's
// output when it fails or runs past its time. Throws sandbox::Unavailable, writing nothing,
// when the sandbox is required and cannot be set up.
BuildOutcome run_sandboxed_build(const SandboxedBuild& build,
                                 const std::filesystem::path& cache_dir);

}  // namespace headway::targets
