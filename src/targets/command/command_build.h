#pragma once
// A command-target candidate's build: the pack's repository copied into the build cache with the
// candidate's files written over it, the manifest's build command run there, then its
// static_cost command where it has one.
#include <filesystem>
#include <string>

#include "targets/command/pack_manifest.h"
#include "targets/target.h"

namespace headway::command {

// The file a built (or failed) candidate's folder holds: {"built", "diagnostics" or "kernel",
// "static_cost" or "static_cost_error", "toolchain"}.
inline constexpr const char* kBuiltMarker = ".headway-build.json";

// Builds `source` under cache_dir/command/<hash of toolchain_id and source>, reusing a folder
// that holds kBuiltMarker. A candidate the pack rejects, or whose build command fails, is
// not built, with the diagnostics; the commands learn the kernel from HEADWAY_KERNEL and
// HEADWAY_ENTRY.
targets::BuildOutcome build_in_pack(const PackManifest& m, const std::string& toolchain_id,
                                    const std::string& source,
                                    const std::filesystem::path& cache_dir);

}  // namespace headway::command
