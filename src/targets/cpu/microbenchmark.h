#pragma once
// Microbenchmarks an agent writes for the cpu target (agents/microbenchmark_writer.h): a whole C++
// program, built with the workspace's compiler and run, both in the sandbox (common/sandbox.h), as
// candidate code is: no network, nothing of $HOME or the workspace visible, a clean environment,
// a scratch folder as the only writable place, and resource limits.
#include <filesystem>
#include <string>

#include "targets/cpu/compiler.h"
#include "targets/target.h"

namespace headway::cpu {

// The toolchain's flags without those that make a shared object (-shared, -fPIC): a program.
std::vector<std::string> program_flags(const Toolchain& toolchain);

// Builds `source` in a fresh scratch folder under cache_dir (removed afterwards) and runs the
// program there with `timeout_s` of wall time (and as much CPU time per thread count it may use),
// 8 GiB of address space and 256 MiB per file. The build gets compiler_limits and 120 s.
// Throws sandbox::Unavailable (from sandbox::wrap), running nothing, when the sandbox is required
// and cannot be set up.
targets::MicrobenchmarkOutcome run_microbenchmark(const Toolchain& toolchain,
                                                  const ToolchainIdentity& identity,
                                                  const std::string& source,
                                                  const std::filesystem::path& cache_dir,
                                                  double timeout_s);

}  // namespace headway::cpu
