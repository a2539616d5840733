#include "loop/truth_audit.h"

#include <map>

#include "kernels/contract.h"
#include "trees/decision_log.h"
#include "trees/design_tree.h"

namespace headway::loop {

std::optional<TruthAudit> audit_against_truth(store::Workspace& ws, targets::Target& target,
                                              const KernelContract& kernel,
                                              const std::filesystem::path& cache_dir) {
  const KernelContract* contract = &kernel;
  auto tree = trees::DesignTree::open(ws, std::string(kernel.name()));
  if (!tree) return std::nullopt;
  std::map<int64_t, std::optional<double>> truth;  // by node
  const auto true_seconds_of = [&](int64_t node) -> std::optional<double> {
    if (const auto known = truth.find(node); known != truth.end()) return known->second;
    std::optional<double> seconds;
    if (const auto source = tree.value().source(node)) {
      const targets::BuildOutcome built = target.build(*source, cache_dir);
      if (built.built()) seconds = target.true_seconds(*contract, built.artifact);
    }
    return truth[node] = seconds;
  };
  // Whether the target knows a truth at all is the baseline's to say.
  if (!true_seconds_of(tree.value().head_history().front().node_id)) return std::nullopt;
  TruthAudit audit;
  trees::DecisionLog log(tree.value());
  for (const trees::TestRecord& t : log.tests()) {
    if (!t.outcome) continue;
    const auto head = true_seconds_of(t.head_node);
    const auto candidate = true_seconds_of(t.candidate_node);
    if (!head || !candidate) continue;
    ++audit.judged;
    const bool accepted = *t.outcome == statistics::Outcome::kFaster;
    if (accepted && *candidate >= *head) ++audit.false_accepts;
    if (*candidate <= (1.0 - kTrueGainPct / 100.0) * *head) {
      ++audit.true_gains;
      if (!accepted) ++audit.false_rejects;
    }
  }
  return audit;
}

}  // namespace headway::loop
