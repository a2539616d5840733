#pragma once
// Ties broken by one core's readings. On a target that times on this machine's shared cores,
// arms whose medians lie within a few percent of the fastest may all be capped by the hour's
// memory bandwidth; which of them stays ahead when more bandwidth comes depends on what one core
// does with the kernel. The loop's races and `headway bench --peers` ask this of their fastest
// arms (docs/STATISTICS.md, "Racing").
#include <cstdint>
#include <nlohmann/json.hpp>
#include <optional>
#include <vector>

#include "kernels/contract.h"
#include "targets/target.h"

namespace headway::targets {

struct OneCoreTies {
  std::vector<int> tied;        // indices into the artifacts, as they came in `ranking`
  std::vector<double> seconds;  // each tied arm's median on one core
  nlohmann::json accounting;    // where its time went (Timing::accounting), or null
};

// The arms at the front of `ranking` (indices into `artifacts`, fastest first) whose `medians`
// (seconds, per artifact; infinite for an arm that broke a rule) lie within tie_pct of the
// first's, read `readings` times each side by side on one core (Target::time_on_one_core) in one
// session from `seed`. nullopt when fewer than two are tied, the target cannot time on one core,
// or a timing fails. The target times on all its cores afterwards, also when this throws.
std::optional<OneCoreTies> time_ties_on_one_core(Target& target, const KernelContract& kernel,
                                                 const std::vector<Artifact>& artifacts,
                                                 const std::vector<int>& ranking,
                                                 const std::vector<double>& medians, double tie_pct,
                                                 int readings, uint64_t seed);

// The tied arm fastest on one core.
int fastest_on_one_core(const OneCoreTies& ties);

}  // namespace headway::targets
