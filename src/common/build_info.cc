#include "common/build_info.h"

#include "headway_build_info.h"

namespace headway {

const BuildInfo& build_info() {
  static const BuildInfo info{HEADWAY_VERSION, HEADWAY_GIT_COMMIT, HEADWAY_COMPILER};
  return info;
}

std::string version_label(const BuildInfo& info) {
  const std::string commit =
      info.git_commit.empty() ? "unknown" : std::string(info.git_commit.substr(0, 12));
  return std::string(info.version) + " (commit " + commit + ")";
}

}  // namespace headway
