#include "targets/cpu/precompiled_header.h"

#include <fmt/format.h>
#include <unistd.h>

#include <atomic>
#include <exception>
#include <fstream>
#include <regex>
#include <sstream>

#include "common/compiler_sandbox.h"
#include "common/file_io.h"
#include "common/hash.h"
#include "common/sandbox.h"
#include "common/subprocess.h"

namespace headway::cpu {

namespace fs = std::filesystem;

namespace {

constexpr double kBuildSeconds = 120.0;
// Left in a folder whose header did not precompile, with the compiler's output: the next build
// reads the headers at once instead of trying again.
constexpr const char* kUnusable = "unusable.txt";

}  // namespace

std::string first_candidate_include(const std::string& source,
                                    const std::vector<targets::DocFile>& headers) {
  static const std::regex include(R"re(^\s*#\s*include\s*([<"])([^>"]+)[>"])re");
  std::istringstream in(source);
  std::string line;
  while (std::getline(in, line)) {
    std::smatch m;
    if (!std::regex_search(line, m, include)) continue;
    if (m[1] != "\"") return "";
    for (const auto& h : headers)
      if (h.path == m[2]) return h.path;
    return "";
  }
  return "";
}

std::optional<fs::path> precompiled_header_folder(const Toolchain& toolchain,
                                                  const ToolchainIdentity& identity,
                                                  const std::vector<targets::DocFile>& headers,
                                                  const std::string& first,
                                                  const fs::path& cache_dir) {
  std::string key = identity.id + '\0' + identity.target_macros + '\0' + first;
  for (const auto& f : toolchain.flags) key += '\0' + f;
  for (const auto& h : headers) key += '\0' + h.path + '\0' + h.text;
  const std::string name = fmt::format("pch-{:016x}", hash_bytes(key.data(), key.size()));
  std::error_code ec;
  const fs::path folder = fs::absolute(cache_dir, ec) / name;  // -I and the sandbox's bind
  const std::string gch = first + ".gch";
  if (fs::exists(folder / gch, ec)) return folder;
  if (fs::exists(folder / kUnusable, ec)) return std::nullopt;
  if (sandbox::mode() == sandbox::Mode::kRequired && !sandbox::unavailable_reason().empty())
    return std::nullopt;  // the candidate's build refuses, and says why

  static std::atomic<uint64_t> builds{0};
  const fs::path scratch =
      folder.parent_path() / fmt::format("{}-tmp-{}-{}", name, getpid(), builds.fetch_add(1));
  try {
    fs::create_directories(scratch);
    for (const auto& h : headers) write_file_creating_folders(scratch / h.path, h.text);
  } catch (const std::exception&) {
    fs::remove_all(scratch, ec);
    return std::nullopt;  // a cache that cannot be written: the build reads the headers
  }
  std::vector<std::string> argv = {toolchain.cxx};
  for (const auto& f : toolchain.flags)
    if (f != "-shared") argv.push_back(f);
  argv.insert(argv.end(),
              {"-x", "c++-header", (scratch / first).string(), "-o", (scratch / gch).string()});
  sandbox::Policy policy;
  policy.writable = {scratch};
  policy.working_directory = scratch;
  policy.limits = compiler_limits();
  const ProcessResult r = run_process(argv, kBuildSeconds, policy);
  if (!r.ok() || !fs::exists(scratch / gch, ec)) {
    std::ofstream(scratch / kUnusable)
        << (r.started ? r.output : fmt::format("{} did not start: {}", toolchain.cxx, r.error));
    fs::remove(scratch / gch, ec);
  }
  // Whole or not at all: a concurrent build of the same folder may have won, and then its folder
  // stands.
  fs::rename(scratch, folder, ec);
  if (ec) fs::remove_all(scratch, ec);
  if (fs::exists(folder / gch, ec)) return folder;
  return std::nullopt;
}

}  // namespace headway::cpu
