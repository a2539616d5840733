#pragma once
// Where headway caches what it builds (candidates, spec references): $HEADWAY_CACHE_DIR, else
// $XDG_CACHE_HOME/headway/builds, else ~/.cache/headway/builds, else a folder in the temp dir.
#include <filesystem>

namespace headway {

std::filesystem::path build_cache_dir();

}  // namespace headway
