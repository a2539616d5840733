#pragma once
// Reading and writing a whole file, with one failure behaviour: a read that fails is nullopt
// (errno says why), a write that fails throws std::runtime_error whose message is one line
// naming the file and the reason ("cannot write PATH: No such file or directory"). Only
// write_file_creating_folders creates a missing parent directory.
#include <filesystem>
#include <optional>
#include <string>
#include <string_view>

namespace headway {

// The bytes of the file at `path`. nullopt when it cannot be opened, is not a regular file (a
// directory: errno EISDIR, anything else: EINVAL) or a read fails; errno then says why. Files
// that report no size (those of /proc) are read to their end.
std::optional<std::string> read_file(const std::filesystem::path& path);

// Creates the file at `path`, or empties it, and writes `bytes` to it. Throws
// std::runtime_error when it cannot (the file may then hold part of `bytes`).
void write_file(const std::filesystem::path& path, std::string_view bytes);

// write_file, after creating the folders above `path` that are missing.
void write_file_creating_folders(const std::filesystem::path& path, std::string_view bytes);

// Replaces the file's content all at once, so that readers see the old content or the new, never
// part: writes `bytes` to a temporary file beside `path` and renames it over `path`. Throws
// std::runtime_error when it cannot; the temporary file is then removed and `path` is unchanged.
void write_file_atomically(const std::filesystem::path& path, std::string_view bytes);

}  // namespace headway
