#include "targets/one_core_ties.h"

#include <algorithm>

namespace headway::targets {

std::optional<OneCoreTies> time_ties_on_one_core(Target& target, const KernelContract& kernel,
                                                 const std::vector<Artifact>& artifacts,
                                                 const std::vector<int>& ranking,
                                                 const std::vector<double>& medians, double tie_pct,
                                                 int readings, uint64_t seed) {
  if (ranking.empty()) return std::nullopt;
  OneCoreTies ties;
  const double limit = medians[static_cast<size_t>(ranking.front())] * (1.0 + tie_pct / 100.0);
  for (const int i : ranking) {
    if (!(medians[static_cast<size_t>(i)] <= limit)) break;
    ties.tied.push_back(i);
  }
  if (ties.tied.size() < 2 || !target.time_on_one_core(true).empty()) return std::nullopt;
  struct AllCoresAfter {
    Target& target;
    ~AllCoresAfter() { target.time_on_one_core(false); }
  } all_cores_after{target};
  std::vector<Artifact> tied_artifacts;
  for (const int i : ties.tied) tied_artifacts.push_back(artifacts[static_cast<size_t>(i)]);
  for (const Timing& t : target.time_side_by_side(kernel, tied_artifacts, readings, seed)) {
    if (!t.ok()) return std::nullopt;
    ties.seconds.push_back(t.median_seconds);
    ties.accounting = t.accounting;  // every arm's is the one session's
  }
  return ties;
}

int fastest_on_one_core(const OneCoreTies& ties) {
  const auto best = std::min_element(ties.seconds.begin(), ties.seconds.end());
  return ties.tied[static_cast<size_t>(best - ties.seconds.begin())];
}

}  // namespace headway::targets
