#pragma once
// For tests: writing small files into a temporary docs folder.
#include <filesystem>
#include <fstream>
#include <stdexcept>
#include <string_view>

namespace headway::knowledge {

// Writes bytes to dir/relative (creating folders), replacing any file there.
inline std::filesystem::path write_test_file(const std::filesystem::path& dir,
                                             const std::filesystem::path& relative,
                                             std::string_view bytes) {
  std::filesystem::path path = dir / relative;
  std::filesystem::create_directories(path.parent_path());
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  out.write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
  if (!out) throw std::runtime_error("cannot write " + path.string());
  return path;
}

}  // namespace headway::knowledge
