#pragma once
// Which headway this is: fixed when the binary is built (cmake/BuildInfo.cmake).
#include <string>
#include <string_view>

namespace headway {

struct BuildInfo {
  std::string_view version;     // the project version, e.g. "0.1.0"
  std::string_view git_commit;  // the full commit hash at configure time; empty when unknown
  std::string_view compiler;    // the compiler that built headway, e.g. "GNU 12.2.0"
};

// This build's identity. Never changes while the process runs.
const BuildInfo& build_info();

// "0.1.0 (commit 1a2b3c4d5e6f)", or "0.1.0 (commit unknown)": the version as one short label, the
// commit abbreviated to 12 characters.
std::string version_label(const BuildInfo& info = build_info());

}  // namespace headway
