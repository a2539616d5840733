#include "loop/kernel_trees.h"

#include "common/result.h"
#include "knowledge/kernel_timings.h"

namespace headway::loop {

double head_ms_of(store::Workspace& ws, const trees::DesignTree& tree,
                  const targets::Target& target) {
  return knowledge::current_head_ms(ws, tree, target.identity().id)
      .value_or(tree.record().floor_ms.value_or(1.0));
}

trees::DesignTree& KernelTrees::tree(const std::string& kernel) {
  auto it = trees_.find(kernel);
  if (it != trees_.end()) return it->second;
  trees::DesignTree opened = value_or_fail(trees::DesignTree::open(ws_, kernel), "open tree");
  return trees_.emplace(kernel, std::move(opened)).first->second;
}

void KernelTrees::keep(const std::string& kernel, trees::DesignTree tree) {
  trees_.insert_or_assign(kernel, std::move(tree));
  figures_.erase(kernel);
}

void KernelTrees::reopen_all() {
  trees_.clear();
  figures_.clear();
}

const KernelTrees::Figures& KernelTrees::figures(const std::string& kernel) {
  auto it = figures_.find(kernel);
  if (it == figures_.end()) {
    trees::DesignTree& t = tree(kernel);
    it = figures_
             .emplace(kernel,
                      Figures{head_ms_of(ws_, t, target_), t.record().floor_ms.value_or(1.0)})
             .first;
  }
  return it->second;
}

}  // namespace headway::loop
