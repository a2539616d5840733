#include "targets/cuda/runner_kernel.h"

#include <fmt/format.h>

#include "kernels/kernel_spec.h"
#include "kernels/spec_kernel.h"

namespace headway::cuda {

RunnerKernel runner_kernel(const KernelContract& kernel) {
  RunnerKernel out;
  out.args = {"--kernel", std::string(kernel.name())};
  if (is_builtin_kernel(kernel.name())) return out;
  const KernelSpec* spec = kernel.spec();
  if (!spec || spec->origin != SpecOrigin::kDisk) {
    fail_with(invalid_input(fmt::format(
        "kernel {} has no spec on disk: the cuda target runs the built-in kernels and kernels "
        "made from a spec",
        kernel.name())));
  }
  out.args.insert(out.args.end(),
                  {"--spec", spec->file.string(), "--shape-set", kernel.shape_set_name()});
  out.readable = spec_files(*spec);
  return out;
}

Result<LoadedKernel> load_runner_kernel(const std::string& name, const std::string& spec,
                                        const std::string& shape_set,
                                        const std::filesystem::path& cache_dir) {
  LoadedKernel out;
  if (spec.empty()) {
    out.kernel = builtin_kernel(name);
    if (!out.kernel) return invalid_input(fmt::format("unknown kernel '{}'", name));
    return out;
  }
  auto loaded = load_spec_kernel(spec, cache_dir, shape_set);
  if (!loaded) return loaded.error();
  if (loaded.value()->name() != name) {
    return invalid_input(
        fmt::format("the spec {} is kernel {}, not {}", spec, loaded.value()->name(), name));
  }
  out.owned = std::move(loaded).value();
  out.kernel = out.owned.get();
  // Built now, so that a reference that does not build is said once, before any module runs.
  if (auto built = out.kernel->build_reference(); !built) return built.error();
  return out;
}

}  // namespace headway::cuda
