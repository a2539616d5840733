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

// The nodes a round's proposals vary, in the order asked, given the beam (`beam`: the head first,
// then the runners-up) and the kernel's rounds before this one: the member whose turn it is (the
// members take turns, round by round), then the head when that one is not the head. Requires a
// non-empty beam.
std::vector<trees::Node> parents_in_turn(const std::vector<trees::Node>& beam, int rounds_before);

// The same read from the tree: the head alone with a beam of 1 or less, else the head and up to
// beam_size - 1 runners-up (beam_runners_up) in turn.
std::vector<trees::Node> beam_parents(store::Workspace& ws, const trees::DesignTree& tree,
                                      int beam_size, int rounds_before);

}  // namespace headway::loop
