#include "targets/cuda/nvcc.h"

#include <fmt/format.h>
#include <unistd.h>

#include <cstdlib>
#include <regex>

#include "common/compiler_sandbox.h"
#include "common/sandbox.h"
#include "common/subprocess.h"
#include "targets/candidate_headers.h"
#include "targets/sandboxed_build.h"

namespace headway::cuda {
namespace fs = std::filesystem;
namespace {

constexpr std::string_view kHeaders[] = {"headway_cuda.h", "headway_kernel.h",
                                         "headway_cuda_support.h", "headway_cuda_attn.h"};

std::string default_nvcc() {
  if (const char* path = std::getenv("PATH")) {
    std::string dirs = path;
    size_t start = 0;
    while (start <= dirs.size()) {
      const size_t end = std::min(dirs.find(':', start), dirs.size());
      const fs::path candidate = fs::path(dirs.substr(start, end - start)) / "nvcc";
      if (end > start && access(candidate.c_str(), X_OK) == 0) return candidate.string();
      start = end + 1;
    }
  }
  return "/usr/local/cuda/bin/nvcc";
}

// nvcc needs more address space than a C++ compiler (cicc and ptxas reserve large maps).
sandbox::Limits nvcc_limits() {
  sandbox::Limits limits = compiler_limits();
  limits.address_space_bytes = 16ull << 30;
  return limits;
}

}  // namespace

NvccToolchain toolchain_for(const std::string& spec, const std::string& detected_arch) {
  NvccToolchain t;
  const size_t at = spec.rfind('@');
  t.nvcc = spec.substr(0, at);
  if (t.nvcc.empty()) t.nvcc = default_nvcc();
  if (at != std::string::npos) {
    t.arch = spec.substr(at + 1);
  } else if (!detected_arch.empty()) {
    t.arch = detected_arch;
  } else if (const char* env = std::getenv("HEADWAY_CUDA_ARCH"); env && *env) {
    t.arch = env;
  } else {
    t.arch = "sm_90";
  }
  return t;
}

targets::ToolchainInfo identify(const NvccToolchain& toolchain) {
  targets::ToolchainInfo info;
  if (!std::regex_match(toolchain.arch, std::regex("sm_[0-9]+[a-z]?"))) {
    info.error = fmt::format("'{}' is not a CUDA architecture (sm_NN, e.g. sm_90)", toolchain.arch);
    return info;
  }
  const ProcessResult r = run_process({"/usr/bin/env", "-i", "PATH=/usr/local/bin:/usr/bin:/bin",
                                       "HOME=/nonexistent", toolchain.nvcc, "--version"},
                                      30.0);
  if (!r.ok()) {
    info.error = r.started && r.exit_code == 127
                     ? fmt::format("nvcc not found: {} (install the CUDA toolkit)", toolchain.nvcc)
                     : fmt::format("`{} --version` failed: {}", toolchain.nvcc,
                                   r.started ? r.output.substr(0, 200) : r.error);
    return info;
  }
  std::smatch m;
  if (!std::regex_search(r.output, m, std::regex("Cuda compilation tools[^\\n]*"))) {
    info.error = fmt::format("{} does not say which CUDA release it is", toolchain.nvcc);
    return info;
  }
  info.found = true;
  info.version = m.str();
  info.id = m.str() + " " + toolchain.arch;
  return info;
}

std::vector<targets::DocFile> cuda_candidate_headers() {
  return targets::candidate_headers(kHeaders);
}

targets::BuildOutcome build_module(const NvccToolchain& toolchain, const targets::ToolchainInfo& id,
                                   const std::string& source, const fs::path& cache_dir,
                                   double timeout_seconds) {
  if (!id.found) {
    targets::BuildOutcome out;
    out.status = targets::BuildOutcome::Status::kToolchainMissing;
    out.diagnostics = id.error;
    return out;
  }
  targets::SandboxedBuild build;
  build.key = id.id + '\0' + source;
  for (const auto& h : cuda_candidate_headers()) {
    build.key += '\0' + h.text;
    build.inputs.push_back(h);
  }
  build.inputs.push_back({"candidate.cu", source});
  build.extension = ".fatbin";
  build.output = "candidate.fatbin";
  build.argv = [&toolchain](const fs::path& scratch) {
    const std::string compute = "compute_" + toolchain.arch.substr(3);
    return std::vector<std::string>{
        toolchain.nvcc,
        "-fatbin",
        "-O3",
        "-std=c++17",
        fmt::format("-gencode=arch={},code=[{},{}]", compute, toolchain.arch, compute),
        "-I",
        scratch.string(),
        (scratch / "candidate.cu").string(),
        "-o",
        (scratch / "candidate.fatbin").string()};
  };
  build.tool = "nvcc";
  build.limits = nvcc_limits();
  // nvcc keeps its intermediate files in TMPDIR: the scratch folder, not the sandbox's small /tmp.
  build.environment = {{"TMPDIR", "{scratch}"}};
  build.timeout_seconds = timeout_seconds;
  targets::BuildOutcome out = targets::run_sandboxed_build(build, cache_dir);
  out.artifact.meta = {{"arch", toolchain.arch}, {"toolchain", id.id}};
  return out;
}

}  // namespace headway::cuda
