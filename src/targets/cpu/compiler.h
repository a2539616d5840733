#pragma once
// Builds a candidate source into a shared object with the host C++ compiler.
#include <filesystem>
#include <string>
#include <string_view>
#include <vector>

#include "common/result.h"
#include "common/sandbox.h"
#include "common/subprocess.h"
#include "targets/target.h"

namespace headway::cpu {

struct Toolchain {
  std::string cxx = "g++";
  std::vector<std::string> flags = {"-std=c++20", "-O3",      "-march=native", "-fPIC",
                                    "-shared",    "-pthread", "-fno-plt"};
  // Builds take the header a candidate includes first precompiled (precompiled_header.h); the
  // objects are the same either way.
  bool precompiled_headers = true;
};

// The interface's identity of the compiler, and what it predefines under the flags
// (predefined_macros; empty when that failed). With -march=native the version and flags do not
// say which instruction sets a build uses, these do: a wrapper that builds for another -march, or
// a build cache shared by two chips, keeps its objects apart by them. The id is the version plus
// the flags: the toolchain version knowledge is keyed on.
struct ToolchainIdentity : targets::ToolchainInfo {
  std::string target_macros;
};

// Runs `cxx --version` and predefined_macros, in the sandbox when it is required and can be set up
// (so that `cxx` is looked up in the same PATH as in build_candidate), else outside it with the
// same clean environment. Never throws.
ToolchainIdentity identify(const Toolchain& toolchain);

// Builds `source` (C++ text that includes "headway_kernel.h") into
// cache_dir/<hash of toolchain id, its target macros and source>.so, the artifact's path (its id
// the hash, its meta {"toolchain": id}). An identical source and toolchain is built once: a later
// call returns the cached object. The object appears atomically (built under a temporary name, then
// renamed), so a failed or interrupted build leaves nothing behind.
//
// The compiler runs in the sandbox (common/sandbox.h): a fresh scratch folder under cache_dir,
// holding the source (and the candidate headers, unless a folder of them with one precompiled is
// bound read-only), is the only writable place and the only one visible outside the system
// folders; the object is built there and moved into cache_dir from outside. The compiler gets 4 GiB
// of address space, 120 s of CPU time per process and 256 MiB per file. So a source that includes a
// file from $HOME, the workspace or anywhere else outside the system folders does not build
// (kCompileError). Throws sandbox::Unavailable, running nothing, in sandbox::Mode::kRequired when
// the sandbox cannot be set up: the whole verb stops, no candidate is judged by it. A cached object
// is returned without running anything. The macros the compiler predefines under the toolchain's
// flags (`cxx FLAGS -dM -E` of an empty translation unit; with -march=native these name the
// instruction sets candidates are built for, e.g. __AVX512BW__), run the way identify() runs `cxx
// --version`. An environment error when the compiler does not run.
Result<std::string> predefined_macros(const Toolchain& toolchain);

targets::BuildOutcome build_candidate(const Toolchain& toolchain, const ToolchainIdentity& identity,
                                      const std::string& source,
                                      const std::filesystem::path& cache_dir,
                                      double timeout_seconds = 120.0);

// The headers (include/headway/) a candidate includes: a build finds them beside it, or in a
// folder with the first it includes precompiled.
inline constexpr std::string_view kCandidateHeaders[] = {"headway_kernel.h", "headway_support.h",
                                                         "headway_rows.h", "headway_decoders.h",
                                                         "headway_attn.h"};

}  // namespace headway::cpu
