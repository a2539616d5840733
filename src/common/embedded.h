#pragma once
#include <string_view>
#include <vector>

namespace headway {
// The text of a project file built into the binary (see cmake/Embed.cmake), by its path relative
// to the project root, e.g. "kernels/baselines/qkv.cc". Throws std::logic_error for a path that
// was not embedded: that is a bug, not an input error.
std::string_view embedded_file(std::string_view path);
// Paths of every embedded file whose path starts with prefix, in sorted order.
std::vector<std::string_view> embedded_files_under(std::string_view prefix);
}  // namespace headway
