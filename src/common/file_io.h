#pragma once
// Replacing a file's content all at once: readers see the old content or the new, never part.
#include <filesystem>
#include <optional>
#include <string>

namespace headway {

// Writes `text` to a temporary file beside `path` and renames it over `path`. nullopt on
// success, else one line naming the file that could not be written (the temporary file is
// removed).
std::optional<std::string> write_file_atomically(const std::filesystem::path& path,
                                                 const std::string& text);

}  // namespace headway
