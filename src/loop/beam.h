#pragma once
// A beam of k heads (OptimizeOptions::beam, `headway optimize --beam K`): the kernel keeps ONE
// head, which changes only through the acceptance test, but proposals vary the k best designs
// measured so far in turn, not the head alone, so that a search can climb from a design that
// lost to the head by a little.
#include <vector>

#include "store/workspace.h"
#include "trees/design_tree.h"

namespace headway::loop {

// Up to `count` nodes of the tree, fastest first by the median of all their readings (races and
// acceptance tests), among those that ran correctly and were measured but are not the head: raced
// out, slower, same, inconclusive, or a former head. Empty for count <= 0.
std::vector<trees::Node> beam_runners_up(store::Workspace& ws, const trees::DesignTree& tree,
                                         int count);

}  // namespace headway::loop
