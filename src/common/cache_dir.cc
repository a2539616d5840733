#include "common/cache_dir.h"

#include <cstdlib>

namespace headway {

std::filesystem::path build_cache_dir() {
  namespace fs = std::filesystem;
  if (const char* d = std::getenv("HEADWAY_CACHE_DIR"); d && *d) return d;
  if (const char* x = std::getenv("XDG_CACHE_HOME"); x && *x) return fs::path(x) / "headway/builds";
  if (const char* h = std::getenv("HOME"); h && *h) return fs::path(h) / ".cache/headway/builds";
  return fs::temp_directory_path() / "headway-builds";
}

}  // namespace headway
