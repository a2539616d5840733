#pragma once
// A run's acceptance tests judged against the truth of a simulated device
// (Target::true_seconds): the errors of the acceptance rule as the loop met them, which on a real
// device no one can count (`headway ablate`, docs/ABLATIONS.md).
#include <filesystem>
#include <optional>
#include <string>

#include "kernels/contract.h"
#include "store/workspace.h"
#include "targets/target.h"

namespace headway::loop {

// A candidate this much truly faster than the head it was tested against (percent of the head's
// time) is a gain a test should find; less is below what the rules are asked to see.
inline constexpr double kTrueGainPct = 1.0;

struct TruthAudit {
  int judged = 0;         // finished tests whose arms both built and have a true time
  int false_accepts = 0;  // FASTER, but the candidate is not truly faster than the head
  int true_gains = 0;     // the candidate truly at least kTrueGainPct faster
  int false_rejects = 0;  // of those, the tests that did not end FASTER
};

// The kernel's finished tests judged against the truth, building head and candidate sources
// under cache_dir (a cached build where the loop built them). nullopt when the target knows no
// truth (a real device) or the kernel is not registered.
std::optional<TruthAudit> audit_against_truth(store::Workspace& ws, targets::Target& target,
                                              const KernelContract& kernel,
                                              const std::filesystem::path& cache_dir);

}  // namespace headway::loop
