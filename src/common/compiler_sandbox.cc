#include "common/compiler_sandbox.h"

#include <string_view>

namespace headway {

sandbox::Limits compiler_limits() {
  sandbox::Limits limits;
  limits.address_space_bytes = 4ull << 30;
  limits.cpu_seconds = 120;
  limits.file_size_bytes = 256ull << 20;
  return limits;
}

std::string sandbox_exec_failure(const ProcessResult& r) {
  constexpr std::string_view kPrefix = "bwrap: execvp ";
  if (!r.started || r.output.rfind(kPrefix, 0) != 0) return "";
  return r.output.substr(7, r.output.find('\n') - 7);
}

}  // namespace headway
