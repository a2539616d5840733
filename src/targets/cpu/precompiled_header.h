#pragma once
// Precompiled candidate headers. Most of a candidate's build is g++ parsing the header it
// includes first (headway_attn.h and the standard and intrinsics headers under it: 63% of the
// compiler's time); a precompiled copy of that header, made once per toolchain and set of header
// texts, takes it away. The object g++ writes is the same byte for byte with or without it, so a
// build's cache key does not change, and where g++ cannot use it (another -march, a macro defined
// before the #include) it reads the header instead.
#include <filesystem>
#include <optional>
#include <string>
#include <vector>

#include "targets/cpu/compiler.h"
#include "targets/target.h"

namespace headway::cpu {

// The header a source includes first with `#include "NAME"`, when NAME is one of `headers`:
// the one g++ may take precompiled. Empty when the first #include is another, or there is none.
std::string first_candidate_include(const std::string& source,
                                    const std::vector<targets::DocFile>& headers);

// A folder under cache_dir (build_candidate's: build_cache_dir(), shared by every workspace)
// holding `headers` and `first`.gch, built by the toolchain in the sandbox the first time it is
// asked for (the folder's name keys the toolchain's identity, its
// flags, every header's text and `first`). nullopt when it cannot be built (a header that does
// not compile alone, a toolchain without precompiled headers): the build then reads the headers.
std::optional<std::filesystem::path> precompiled_header_folder(
    const Toolchain& toolchain, const ToolchainIdentity& identity,
    const std::vector<targets::DocFile>& headers, const std::string& first,
    const std::filesystem::path& cache_dir);

}  // namespace headway::cpu
