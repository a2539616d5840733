#pragma once
// For tests: writing small files into a temporary docs folder, and reading files back.
#include <filesystem>
#include <fstream>
#include <sstream>
#include <stdexcept>
#include <string>
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

// The file's bytes; empty when it cannot be read.
inline std::string read_test_file(const std::filesystem::path& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream text;
  text << in.rdbuf();
  return text.str();
}

}  // namespace headway::knowledge
