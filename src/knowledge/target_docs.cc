#include "knowledge/target_docs.h"

#include <fmt/format.h>
#include <unistd.h>

#include <fstream>

namespace headway::knowledge {

namespace fs = std::filesystem;

Result<fs::path> write_target_docs(const targets::TargetDocs& docs, const fs::path& dir) {
  const fs::path tmp =
      dir.parent_path() / fmt::format(".{}.tmp-{}", dir.filename().string(), getpid());
  std::error_code ec;
  fs::remove_all(tmp, ec);
  for (const targets::DocFile& file : docs.files) {
    const fs::path path = tmp / file.path;
    fs::create_directories(path.parent_path(), ec);
    if (ec)
      return environment_error(
          fmt::format("cannot create {}: {}", path.parent_path().string(), ec.message()));
    const std::string& text = file.text;
    std::ofstream out(path, std::ios::binary | std::ios::trunc);
    out.write(text.data(), static_cast<std::streamsize>(text.size()));
    out.close();
    if (!out) {
      fs::remove_all(tmp, ec);
      return environment_error(fmt::format("cannot write {}", path.string()));
    }
  }
  // Replace dir: the old copy is moved aside first, so a failure leaves one complete copy.
  const fs::path old =
      dir.parent_path() / fmt::format(".{}.old-{}", dir.filename().string(), getpid());
  fs::remove_all(old, ec);
  const bool had = fs::exists(dir, ec);
  if (had) {
    fs::rename(dir, old, ec);
    if (ec) {
      fs::remove_all(tmp, ec);
      return environment_error(fmt::format("cannot replace {}: {}", dir.string(), ec.message()));
    }
  }
  fs::rename(tmp, dir, ec);
  if (ec) {
    const std::string why = ec.message();
    if (had) fs::rename(old, dir, ec);
    fs::remove_all(tmp, ec);
    return environment_error(fmt::format("cannot write {}: {}", dir.string(), why));
  }
  fs::remove_all(old, ec);
  return dir;
}

}  // namespace headway::knowledge
