#pragma once
// A target's own documentation (Target::docs: for cpu the docs a candidate author needs and a
// cited summary of them), written out as a folder that onboarding indexes. The docs keep their
// paths relative to the project root, so a summary's citations resolve against the folder
// write_target_docs fills, and against a source checkout.
#include <filesystem>

#include "common/result.h"
#include "targets/target.h"

namespace headway::knowledge {

// Makes `dir` hold exactly docs.files (at their relative paths): written into a sibling
// temporary folder, which then replaces `dir`. An error when a file cannot be written; `dir` is
// then unchanged.
Result<std::filesystem::path> write_target_docs(const targets::TargetDocs& docs,
                                                const std::filesystem::path& dir);

}  // namespace headway::knowledge
