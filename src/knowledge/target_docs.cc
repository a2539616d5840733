#include "knowledge/target_docs.h"

#include <fmt/format.h>
#include <unistd.h>

#include <stdexcept>

#include "common/file_io.h"

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
    try {
      write_file(path, file.text);
    } catch (const std::runtime_error& e) {
      fs::remove_all(tmp, ec);
      return environment_error(e.what());
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
