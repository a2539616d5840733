#include "common/atomic_file.h"

#include <fmt/format.h>
#include <unistd.h>

#include <fstream>
#include <system_error>

namespace headway {

std::optional<std::string> write_file_atomically(const std::filesystem::path& path,
                                                 const std::string& text) {
  const std::filesystem::path tmp = path.string() + fmt::format(".tmp-{}", ::getpid());
  std::error_code ec;
  {
    std::ofstream out(tmp, std::ios::binary | std::ios::trunc);
    out.write(text.data(), static_cast<std::streamsize>(text.size()));
    out.close();
    if (!out) {
      std::filesystem::remove(tmp, ec);
      return fmt::format("cannot write {}", tmp.string());
    }
  }
  std::filesystem::rename(tmp, path, ec);
  if (ec) {
    std::filesystem::remove(tmp, ec);
    return fmt::format("cannot write {}: {}", path.string(), ec.message());
  }
  return std::nullopt;
}

}  // namespace headway
