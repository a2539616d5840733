#pragma once
// A kernel spec's design library on one target: the files its `[designs]` table names for the
// target, and its baseline there when that declares itself a design (a `headway-design:` header
// with `param` lines), so that with no LLM a new kernel is tuned through its parameters as the
// built-in library's designs are (kernels/designs/README.md).
#include <string_view>
#include <vector>

#include "common/result.h"
#include "kernels/kernel_spec.h"
#include "targets/kernel_language.h"
#include "targets/target.h"

namespace headway::targets {

// {absolute path, text} of each design file, the baseline first when it is one. A file that
// cannot be read is left out (spec_designs_check says why).
std::vector<DocFile> spec_design_files(const KernelSpec& spec, std::string_view target);

// Parses every design file in the language: the first that does not parse is an error reading
// "FILE:LINE: design: what".
Result<void> spec_designs_check(const KernelSpec& spec, std::string_view target,
                                const KernelLanguage& language);

}  // namespace headway::targets
