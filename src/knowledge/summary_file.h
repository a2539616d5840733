#pragma once
// Reading a cited summary (Markdown) from disk.
#include <filesystem>
#include <string>

#include "common/result.h"

namespace headway::knowledge {

// The file's text; an error naming the path when it is not a regular file, cannot be read, or is
// not text (text_lines.h: NUL bytes, invalid UTF-8).
Result<std::string> read_summary_file(const std::filesystem::path& path);

}  // namespace headway::knowledge
