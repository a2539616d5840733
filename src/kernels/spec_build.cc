#include "kernels/spec_build.h"

#include <dlfcn.h>
#include <fmt/format.h>
#include <unistd.h>

#include <algorithm>
#include <cstdlib>
#include <stdexcept>
#include <string>
#include <vector>

#include "common/embedded.h"
#include "common/file_io.h"
#include "common/hash.h"
#include "common/subprocess.h"

namespace headway {

namespace fs = std::filesystem;

const SpecFunctions& SpecBuild::functions() const {
  std::call_once(once_, [this] { built_.emplace(build_()); });
  if (!*built_) fail_with(built_->error());
  return built_->value();
}

Result<void> SpecBuild::build() const {
  std::call_once(once_, [this] { built_.emplace(build_()); });
  if (!*built_) return built_->error();
  return {};
}

namespace {

struct SourceFile {
  std::string name;  // a file name, no folders
  std::string text;
};

// The headers (.h, .hh, .hpp) in the folder of `source`, which it may include: they key its build
// and, for an embedded source, are copied beside it.
std::vector<SourceFile> headers_beside(const fs::path& source, bool on_disk) {
  std::vector<SourceFile> out;
  auto is_header = [](const fs::path& p) {
    const std::string ext = p.extension().string();
    return ext == ".h" || ext == ".hh" || ext == ".hpp";
  };
  if (!on_disk) {
    const std::string folder = source.parent_path().generic_string() + "/";
    for (const std::string_view name : embedded_files_under(folder)) {
      const fs::path p(name);
      if (p.parent_path() == source.parent_path() && is_header(p))
        out.push_back({p.filename().string(), std::string(embedded_file(name))});
    }
    return out;
  }
  std::error_code ec;
  for (auto it = fs::directory_iterator(source.parent_path(), ec);
       !ec && it != fs::directory_iterator(); it.increment(ec)) {
    if (!is_header(it->path())) continue;
    if (auto text = read_file(it->path())) out.push_back({it->path().filename().string(), *text});
  }
  std::sort(out.begin(), out.end(),
            [](const SourceFile& a, const SourceFile& b) { return a.name < b.name; });
  return out;
}

// Builds `text`, the source named `source` (compiled from that path when `on_disk`, else from a
// copy in the build folder), and returns its C function `symbol`.
Result<void*> build_spec_source(std::string_view text, const fs::path& source, bool on_disk,
                                std::string_view symbol, const fs::path& cache_dir) {
  const std::string_view role = symbol == "headway_generate" ? "generator" : "reference";
  const std::string ext = source.extension().string();
  const bool c = ext == ".c";
  const char* env = std::getenv(c ? "CC" : "CXX");
  const std::string compiler = env && *env ? env : (c ? "cc" : "c++");
  const std::string_view header = embedded_file("include/headway/headway_reference.h");
  // IEEE arithmetic as written: -O3 vectorizes element-wise loops (bit for bit the same), but
  // nothing reassociates a sum, and no a * b + c becomes one fused rounding on any machine.
  std::vector<std::string> argv = {compiler, "-O3",     "-ffp-contract=off",
                                   "-fPIC",  "-shared", c ? "-std=c11" : "-std=c++20"};
  const std::vector<SourceFile> headers = headers_beside(source, on_disk);
  // The command (compiler and flags) is part of what the object is.
  std::string key = std::string(text) + '\0' + std::string(header) + '\0' + ext;
  for (const auto& word : argv) key += '\0' + word;
  for (const auto& h : headers) key += '\0' + h.name + '\0' + h.text;
  const fs::path dir = cache_dir / "references";
  const fs::path object =
      dir / fmt::format("reference-{:016x}.so", hash_bytes(key.data(), key.size()));
  std::error_code ec;
  if (!fs::exists(object, ec)) {
    const fs::path work = dir / fmt::format("build-{:016x}-{}", hash_bytes(key.data(), key.size()),
                                            static_cast<long>(getpid()));
    const fs::path copy = work / source.filename();
    try {
      write_file_creating_folders(work / "include/headway_reference.h", header);
      if (!on_disk) {
        write_file_creating_folders(copy, text);
        for (const auto& h : headers) write_file_creating_folders(work / h.name, h.text);
      }
    } catch (const std::runtime_error& e) {
      return environment_error(e.what());
    }
    const fs::path built = work / "reference.so";
    argv.insert(argv.end(), {"-I", (work / "include").string(), "-o", built.string(),
                             (on_disk ? source : copy).string(), "-lm"});
    const ProcessResult r = run_process(argv, 300.0);
    if (!r.started) {
      fs::remove_all(work, ec);
      return environment_error(
          fmt::format("cannot run {} to build the {}: {}", compiler, role, r.error));
    }
    if (!r.ok()) {
      fs::remove_all(work, ec);
      return invalid_input(
          fmt::format("{}: the {} does not build:\n{}", source.string(), role, r.output));
    }
    fs::rename(built, object, ec);  // atomic: a concurrent build of the same key wins either way
    fs::remove_all(work, ec);
    if (ec)
      return environment_error(fmt::format("cannot store {}: {}", object.string(), ec.message()));
  }
  // Never closed: contracts made from it live as long as the process.
  void* handle = dlopen(object.c_str(), RTLD_NOW | RTLD_LOCAL);
  if (!handle)
    return invalid_input(
        fmt::format("{}: cannot load the built reference: {}", source.string(), dlerror()));
  void* entry = dlsym(handle, std::string(symbol).c_str());
  if (!entry) {
    return invalid_input(
        fmt::format("{}: defines no '{}' with C linkage (include/headway/headway_reference.h)",
                    source.string(), symbol));
  }
  return entry;
}

}  // namespace

Result<void*> build_spec_function(const fs::path& source, std::string_view symbol,
                                  const fs::path& cache_dir) {
  const std::optional<std::string> text = read_file(source);
  if (!text) {
    return invalid_input(fmt::format("{}: cannot read the {}", source.string(),
                                     symbol == "headway_generate" ? "generator" : "reference"));
  }
  return build_spec_source(*text, source, true, symbol, cache_dir);
}

Result<SpecFunctions> build_spec_functions(const KernelSpec& spec, const fs::path& cache_dir) {
  const bool on_disk = spec.origin == SpecOrigin::kDisk;
  auto build = [&](const fs::path& source, std::string_view symbol) -> Result<void*> {
    if (!on_disk)
      return build_spec_source(embedded_file(source.generic_string()), source, false, symbol,
                               cache_dir);
    return build_spec_function(source, symbol, cache_dir);
  };
  auto reference = build(spec.reference, "headway_reference");
  if (!reference) return reference.error();
  SpecFunctions functions;
  functions.reference =
      reinterpret_cast<void (*)(double* const*, const int64_t*)>(reference.value());
  if (!spec.generator.empty()) {
    auto generate = build(spec.generator, "headway_generate");
    if (!generate) return generate.error();
    functions.generate =
        reinterpret_cast<void (*)(uint64_t, double* const*, const int64_t*)>(generate.value());
  }
  return functions;
}

}  // namespace headway
