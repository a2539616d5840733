#pragma once
// Builds a candidate source into a shared object with the host C++ compiler.
#include <filesystem>
#include <string>
#include <vector>

#include "common/sandbox.h"
#include "common/subprocess.h"

namespace headway::cpu {

struct Toolchain {
  std::string cxx = "g++";
  std::vector<std::string> flags = {"-std=c++20", "-O3",      "-march=native", "-fPIC",
                                    "-shared",    "-pthread", "-fno-plt"};
};

struct ToolchainIdentity {
  bool found = false;
  std::string error;    // why the compiler could not be identified
  std::string version;  // first line of `cxx --version`
  std::string id;       // version plus flags: the toolchain version knowledge is keyed on
  // What the compiler predefines under the flags (predefined_macros; empty when that failed). With
  // -march=native the version and flags do not say which instruction sets a build uses, these do:
  // a wrapper that builds for another -march, or a build cache shared by two chips, keeps its
  // objects apart by them.
  std::string target_macros;
};

// Runs `cxx --version` and predefined_macros, in the sandbox when it is required and can be set up
// (so that `cxx` is looked up in the same PATH as in build_candidate), else outside it with the
// same clean environment. Never throws.
ToolchainIdentity identify(const Toolchain& toolchain);

struct BuildResult {
  enum class Status { kBuilt, kCompileError, kToolchainMissing } status = Status::kCompileError;
  std::filesystem::path shared_object;  // kBuilt: the built file
  std::string diagnostics;              // the compiler's output (kCompileError: its errors)
  bool cached = false;                  // kBuilt from an earlier identical build
  double seconds = 0.0;
};

// Builds `source` (C++ text that includes "headway_kernel.h") into
// cache_dir/<hash of toolchain id, its target macros and source>.so. An identical source and
// toolchain is built
// once: a later call returns the cached object. The object appears atomically (built under a
// temporary name, then renamed), so a failed or interrupted build leaves nothing behind.
//
// The compiler runs in the sandbox (common/sandbox.h): a fresh scratch folder under cache_dir,
// holding the source and the candidate headers, is the only writable place and the only one
// visible outside the system folders; the object is built there and moved into cache_dir from
// outside. The compiler gets 4 GiB of address space, 120 s of CPU time per process and 256 MiB
// per file. So a source that includes a file from $HOME, the workspace or anywhere else outside
// the system folders does not build (kCompileError).
// Throws sandbox::Unavailable, running nothing, in sandbox::Mode::kRequired when the sandbox
// cannot be set up: the whole verb stops, no candidate is judged by it. A cached object is
// returned without running anything.
// The macros the compiler predefines under the toolchain's flags (`cxx FLAGS -dM -E` of an empty
// translation unit; with -march=native these name the instruction sets candidates are built for,
// e.g. __AVX512BW__), run the way identify() runs `cxx --version`. Empty and *error set when the
// compiler does not run.
std::string predefined_macros(const Toolchain& toolchain, std::string* error);

BuildResult build_candidate(const Toolchain& toolchain, const ToolchainIdentity& identity,
                            const std::string& source, const std::filesystem::path& cache_dir,
                            double timeout_seconds = 120.0);

// The headers a candidate includes, as (name it includes, embedded project path): every build
// writes them beside the candidate.
struct CandidateHeader {
  const char* include_name;
  const char* embedded_path;
};
inline constexpr CandidateHeader kCandidateHeaders[] = {
    {"headway_kernel.h", "include/headway/kernel_abi.h"},
    {"headway_support.h", "include/headway/kernel_support.h"},
    {"headway_rows.h", "include/headway/kernel_rows.h"},
};

}  // namespace headway::cpu
