#include "loop/floor_recheck.h"

#include "loop/kernel_registration.h"
#include "targets/floor_facts.h"

namespace headway::loop {

bool FloorRecheck::wanted(const std::vector<std::string>& near, KernelTrees& trees) {
  bool unjudged = false;
  for (const auto& name : near) {
    const double head = trees.head_ms(name);
    if (const auto it = judged_.find(name); it != judged_.end() && it->second == head) continue;
    judged_[name] = head;
    unjudged = true;
  }
  return unjudged;
}

Result<std::vector<LoweredFloor>> FloorRecheck::lower_floors(
    targets::Target& target, const KernelCatalog& catalog, const std::vector<std::string>& kernels,
    KernelTrees& trees) {
  auto measured = targets::measure_floor_facts(target);
  if (!measured) return measured.error();
  std::vector<LoweredFloor> lowered;
  for (const auto& name : kernels) {
    trees::DesignTree& tree = trees.tree(name);
    const trees::KernelRecord record = tree.record();
    const double now = target.floors(kernel_or_fail(catalog, name), measured->values).memory_ms;
    if (record.floor_ms && !(now < *record.floor_ms)) continue;
    tree.set_kernel_times(now, record.baseline_ms);
    trees.forget_figures(name);
    lowered.push_back({name, record.floor_ms.value_or(0.0), now});
  }
  return lowered;
}

}  // namespace headway::loop
