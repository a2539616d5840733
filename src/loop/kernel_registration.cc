#include "loop/kernel_registration.h"

#include <fmt/format.h>

#include <stdexcept>

#include "common/result.h"
#include "loop/kernel_floors.h"
#include "loop/kernel_stopped.h"
#include "trees/decision_log.h"
#include "trees/race_log.h"

namespace headway::loop {

const KernelContract& kernel_or_fail(const KernelCatalog& catalog, const std::string& name) {
  const KernelContract* kernel = catalog.find_kernel(name);
  if (!kernel) fail_with(not_found(fmt::format("unknown kernel '{}'", name)));
  return *kernel;
}

std::optional<trees::DesignTree> register_kernel(store::Workspace& ws, targets::Target& target,
                                                 const KernelContract& kernel, const BuildFn& build,
                                                 int baseline_readings) {
  const std::string name(kernel.name());
  for (const auto& k : trees::DesignTree::kernels(ws)) {
    if (k.name == name) return std::nullopt;
  }
  const double floor = target.floors(kernel, load_or_measure_floor_facts(ws, target)).memory_ms;
  const std::string source = target.baseline_source(kernel);
  const auto built = build(source);
  if (!built.built()) {
    const targets::Diagnostic first = target.normalize_diagnostic(built.diagnostics);
    throw KernelStopped("its baseline does not build: " +
                        (first.line.empty() ? built.diagnostics : first.line));
  }
  const auto timing =
      target.time_side_by_side(kernel, {built.artifact}, baseline_readings, 1).front();
  if (!timing.ok()) throw KernelStopped(fmt::format("its baseline {}", timing.failure));
  const double baseline = timing.median_seconds * 1e3;
  trees::KernelRecord record{name, target.name(), floor, baseline, ""};
  auto tree = trees::DesignTree::create(ws, record, source, nlohmann::json::object(), baseline);
  return value_or_fail(std::move(tree), "register kernel");
}

void discard_unfinished_decisions(trees::DesignTree& tree) {
  trees::DecisionLog(tree).abandon_unfinished_tests();
  trees::RaceLog(tree).abandon_unfinished_races();
}

}  // namespace headway::loop
