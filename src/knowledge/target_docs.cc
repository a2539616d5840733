#include "knowledge/target_docs.h"

#include <fmt/format.h>
#include <unistd.h>

#include <fstream>

#include "common/embedded.h"

namespace headway::knowledge {

namespace fs = std::filesystem;

const std::vector<std::string_view>& cpu_target_doc_paths() {
  static const std::vector<std::string_view> paths = {"docs/KERNELS.md",
                                                      "kernels/designs/README.md"};
  return paths;
}

std::string_view cpu_target_summary() { return embedded_file(kCpuTargetSummaryPath); }

store::Result<fs::path> write_cpu_target_docs(const fs::path& dir) {
  const fs::path tmp =
      dir.parent_path() / fmt::format(".{}.tmp-{}", dir.filename().string(), getpid());
  std::error_code ec;
  fs::remove_all(tmp, ec);
  for (std::string_view rel : cpu_target_doc_paths()) {
    const fs::path path = tmp / rel;
    fs::create_directories(path.parent_path(), ec);
    if (ec)
      return store::Error{
          fmt::format("cannot create {}: {}", path.parent_path().string(), ec.message())};
    const std::string_view text = embedded_file(rel);
    std::ofstream out(path, std::ios::binary | std::ios::trunc);
    out.write(text.data(), static_cast<std::streamsize>(text.size()));
    out.close();
    if (!out) {
      fs::remove_all(tmp, ec);
      return store::Error{fmt::format("cannot write {}", path.string())};
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
      return store::Error{fmt::format("cannot replace {}: {}", dir.string(), ec.message())};
    }
  }
  fs::rename(tmp, dir, ec);
  if (ec) {
    const std::string why = ec.message();
    if (had) fs::rename(old, dir, ec);
    fs::remove_all(tmp, ec);
    return store::Error{fmt::format("cannot write {}: {}", dir.string(), why)};
  }
  fs::remove_all(old, ec);
  return dir;
}

}  // namespace headway::knowledge
