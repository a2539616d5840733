#include "knowledge/spec_check.h"

#include <fmt/format.h>

#include <utility>

#include "kernels/spec_self_check.h"
#include "targets/design_library.h"
#include "targets/spec_designs.h"

namespace headway::knowledge {

namespace fs = std::filesystem;

Result<JudgedSpec> judge_spec(const fs::path& file, uint64_t seed, const fs::path& cache_dir) {
  auto loaded = load_kernel_spec(file);
  if (!loaded) return loaded.error();
  JudgedSpec judged;
  judged.spec = std::make_shared<const KernelSpec>(std::move(loaded).value());
  auto kernels = spec_kernels(judged.spec, cache_dir);
  if (!kernels) return kernels.error();
  judged.kernels = std::move(kernels).value();
  for (const auto& kernel : judged.kernels) {
    if (auto ok = self_check_in_child(*kernel, seed); !ok) {
      return invalid_input(fmt::format("{}: shape set {}: {}", judged.spec->file.string(),
                                       kernel->shape_set().name, ok.error().message));
    }
  }
  return judged;
}

Result<void> check_spec_designs(const JudgedSpec& judged, const targets::Target& target) {
  return targets::spec_designs_check(*judged.spec, target.name(), target.kernel_language());
}

Result<targets::Artifact> build_source(targets::Target& target, const std::string& source,
                                       const std::string& label, const fs::path& cache_dir) {
  if (!target.identity().found) return Error{target.identity().error_code, target.identity().error};
  const auto built = target.build(source, cache_dir);
  switch (built.status) {
    case targets::BuildOutcome::Status::kBuilt:
      return built.artifact;
    case targets::BuildOutcome::Status::kToolchainMissing:
      return environment_error(fmt::format("compiler not usable: {}", built.diagnostics));
    case targets::BuildOutcome::Status::kCompileError:
      break;
  }
  return invalid_input(fmt::format("{} does not build:\n{}", label, built.diagnostics));
}

Result<std::vector<SourceCheck>> check_spec_sources(const JudgedSpec& judged,
                                                    targets::Target& target, uint64_t seed,
                                                    const fs::path& cache_dir) {
  const KernelSpec& spec = *judged.spec;
  std::vector<std::pair<std::string, targets::Artifact>> sources;
  const std::string baseline = target.baseline_source(*judged.kernels.front());
  auto built = build_source(target, baseline,
                            fmt::format("the {} baseline of {}", target.name(), spec.file.string()),
                            cache_dir);
  if (!built) return built.error();
  sources.emplace_back("baseline", std::move(built).value());
  for (const auto& file : targets::spec_design_files(spec, target.name())) {
    auto design = targets::parse_design(spec.name, file.text, target.kernel_language());
    if (!design) return design.error();
    if (file.text == baseline) continue;  // the baseline declared as a design: built above
    auto artifact = build_source(target, design.value().render(design.value().defaults()),
                                 file.path, cache_dir);
    if (!artifact) return artifact.error();
    sources.emplace_back("design " + design.value().name, std::move(artifact).value());
  }
  std::vector<SourceCheck> checks;
  for (const auto& kernel : judged.kernels) {
    for (const auto& [label, artifact] : sources) {
      targets::CheckOptions options;
      options.seed = seed;
      targets::CheckOutcome outcome = target.check(*kernel, artifact, options);
      if (outcome.status == targets::CheckOutcome::Status::kUnloadable) {
        return invalid_input(
            fmt::format("the {} {}: {}", target.name(), label, outcome.description));
      }
      checks.push_back({kernel->shape_set().name, label, std::move(outcome)});
    }
  }
  return checks;
}

}  // namespace headway::knowledge
