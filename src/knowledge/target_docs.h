#pragma once
// The cpu target's own documentation, built into the binary: the docs a candidate author needs
// (docs/KERNELS.md: ABI, rounding points, the check; kernels/designs/README.md: the design
// library) and a cited summary of them (docs/targets/cpu-summary.md) that onboarding checks
// offline. The docs keep their paths relative to the project root, so the summary's citations
// resolve against the folder write_cpu_target_docs fills, and against a source checkout.
#include <filesystem>
#include <string_view>
#include <vector>

#include "store/result.h"

namespace headway::knowledge {

// The built-in docs' paths, relative to the project root.
const std::vector<std::string_view>& cpu_target_doc_paths();
// The built-in cited summary's Markdown and its path in the project.
std::string_view cpu_target_summary();
inline constexpr std::string_view kCpuTargetSummaryPath = "docs/targets/cpu-summary.md";

// Makes `dir` hold exactly the built-in docs (at their relative paths): written into a sibling
// temporary folder, which then replaces `dir`. An error when a file cannot be written; `dir` is
// then unchanged.
store::Result<std::filesystem::path> write_cpu_target_docs(const std::filesystem::path& dir);

}  // namespace headway::knowledge
