#include "knowledge/workspace_kernels.h"

#include <fmt/format.h>

#include <algorithm>
#include <system_error>

#include "kernels/kernel_spec.h"

namespace headway::knowledge {

namespace fs = std::filesystem;

fs::path workspace_kernels_dir(const fs::path& root) { return root / "kernels"; }

Result<fs::path> add_workspace_kernel(const store::Workspace& ws, const fs::path& spec_file,
                                      bool replace) {
  auto loaded = load_kernel_spec(spec_file);
  if (!loaded) return loaded.error();
  const KernelSpec& spec = loaded.value();
  if (is_builtin_kernel(spec.name)) {
    return invalid_input(
        fmt::format("kernel {} is built in: give the spec another name", spec.name));
  }
  const fs::path home = spec.file.parent_path();
  const std::vector<fs::path> files = spec_files(spec);
  std::vector<fs::path> relative;
  for (const auto& f : files) {
    const fs::path rel = f.lexically_relative(home);
    if (rel.empty() || *rel.begin() == "..") {
      return invalid_input(fmt::format(
          "{}: {} lies outside the spec's folder; keep a spec's files beside it or below it",
          spec.file.string(), f.string()));
    }
    relative.push_back(rel);
  }
  const fs::path dest = workspace_kernels_dir(ws.root()) / spec.name;
  std::error_code ec;
  if (fs::exists(dest, ec)) {
    if (!replace) {
      return Error{ErrorCode::kConflict,
                   fmt::format("kernel {} is already added ({}); pass --replace to replace it",
                               spec.name, dest.string())};
    }
  }
  // Copy beside the destination, then swap it in: a failed copy leaves the old one as it was.
  const fs::path staging = dest.string() + ".adding";
  fs::remove_all(staging, ec);
  for (size_t i = 0; i < files.size(); ++i) {
    fs::create_directories((staging / relative[i]).parent_path(), ec);
    if (!ec && fs::exists(staging / relative[i])) continue;  // named twice
    if (!ec)
      fs::copy_file(files[i], staging / relative[i], fs::copy_options::overwrite_existing, ec);
    if (ec) {
      const std::string why = ec.message();
      fs::remove_all(staging, ec);
      return environment_error(
          fmt::format("cannot copy {} into {}: {}", files[i].string(), staging.string(), why));
    }
  }
  fs::remove_all(dest, ec);
  fs::rename(staging, dest, ec);
  if (ec) {
    return environment_error(
        fmt::format("cannot move {} to {}: {}", staging.string(), dest.string(), ec.message()));
  }
  return dest / relative[0];
}

std::vector<fs::path> workspace_kernel_specs(const fs::path& root) {
  std::vector<fs::path> out;
  std::error_code ec;
  for (const auto& entry : fs::directory_iterator(workspace_kernels_dir(root), ec)) {
    const fs::path spec = entry.path() / (entry.path().filename().string() + ".toml");
    if (entry.is_directory(ec) && entry.path().extension() != ".adding" && fs::exists(spec, ec))
      out.push_back(spec);
  }
  std::sort(out.begin(), out.end());
  return out;
}

Result<KernelCatalog> workspace_catalog(const fs::path& root, const fs::path& cache_dir) {
  KernelCatalog catalog;
  for (const fs::path& spec : workspace_kernel_specs(root)) {
    const std::string label =
        fmt::format("workspace kernel {}", spec.parent_path().filename().string());
    auto kernel = catalog.add_spec(spec, cache_dir, "", label);
    if (!kernel)
      return Error{kernel.error().code, fmt::format("{}: {}", label, kernel.error().message)};
  }
  return catalog;
}

std::vector<RecordedKernel> recorded_kernels(store::Workspace& ws, const KernelCatalog& catalog) {
  std::vector<RecordedKernel> out;
  for (trees::KernelRecord& record : trees::DesignTree::kernels(ws)) {
    const KernelContract* contract = catalog.find_kernel(record.name);
    out.push_back({std::move(record), contract});
  }
  return out;
}

}  // namespace headway::knowledge
