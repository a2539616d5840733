#pragma once
// What headway asks of a kernel spec before it uses one (docs/KERNELS.md, "Kernel specs"), the
// procedure `headway kernel check` and `headway kernel add` share: the spec reads, its reference
// builds and judges at every shape set (kernels/spec_self_check.h), its design files for the
// target parse (targets/spec_designs.h), and, for `kernel check`, the target's baseline and each
// design, built at its defaults, pass at every shape set.
#include <cstdint>
#include <filesystem>
#include <memory>
#include <string>
#include <vector>

#include "common/result.h"
#include "kernels/kernel_spec.h"
#include "kernels/spec_kernel.h"
#include "targets/target.h"

namespace headway::knowledge {

// A spec whose reference built and judged: its contract at each shape set, in the spec's order.
struct JudgedSpec {
  std::shared_ptr<const KernelSpec> spec;
  std::vector<std::unique_ptr<SpecKernel>> kernels;
};

// Reads the spec at `file`, builds its reference under cache_dir and judges it at every shape set
// with `seed`, each in a child process: call it while this process has one thread. Errors: the
// spec's own (its file and line), the reference's build (its diagnostics), or "FILE: shape set
// S: what fails" (invalid input).
Result<JudgedSpec> judge_spec(const std::filesystem::path& file, uint64_t seed,
                              const std::filesystem::path& cache_dir);

// The spec's design files for the target parse: else "FILE:LINE: design: what".
Result<void> check_spec_designs(const JudgedSpec& judged, const targets::Target& target);

// Builds `source` with the target under cache_dir. Errors: the target's toolchain is not found
// (its own code and words), missing ("compiler not usable: ...", environment), or the source does
// not build ("LABEL does not build:\n" and the toolchain's diagnostics, invalid input).
Result<targets::Artifact> build_source(targets::Target& target, const std::string& source,
                                       const std::string& label,
                                       const std::filesystem::path& cache_dir);

// One check of one source at one shape set.
struct SourceCheck {
  std::string shape;  // the shape set's name
  std::string label;  // "baseline" or "design NAME"
  targets::CheckOutcome outcome;
};

// Builds the target's baseline of the spec and each of its designs at its defaults (build_source's
// errors; a design that is the baseline is built once), then checks each at every shape set with
// `seed`: by shape set, then baseline and designs in order. A source the target cannot load is an
// error: "the TARGET LABEL: why" (invalid input).
Result<std::vector<SourceCheck>> check_spec_sources(const JudgedSpec& judged,
                                                    targets::Target& target, uint64_t seed,
                                                    const std::filesystem::path& cache_dir);

}  // namespace headway::knowledge
