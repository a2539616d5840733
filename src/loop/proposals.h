#pragma once
// How proposals become nodes of a kernel's Design Tree, and what a proposer is told of the
// tree's past (loop/proposer.h).
#include <vector>

#include "loop/proposer.h"
#include "trees/design_tree.h"

namespace headway::loop {

// The decided candidates among a tree's `nodes` (screened, raced or tested; neither the baseline
// nor those still proposed), most recently decided first, at most ProposalContext::kMaxTried.
std::vector<TriedCandidate> tried_candidates(const std::vector<trees::Node>& nodes);

// A candidate tied with a race's winner, on a target whose readings move with the hour's
// bandwidth, says nothing of another hour: it stays proposed with kTiedInRace (the race's id) in
// its evidence and is raced again once, after the kernel's other candidates (loop/round.h).
inline constexpr const char* kTiedInRace = "tied_in_race";
bool tied_in_race(const trees::Node& node);

// The tree's nodes still proposed (left by a killed run or asked for ahead), oldest first; never
// the head, nor one tied in a race.
std::vector<trees::Node> proposed_nodes(trees::DesignTree& tree);
// The tree's proposed nodes tied in a race, oldest first: a round's candidates once the kernel
// has nothing else to try.
std::vector<trees::Node> tied_nodes(trees::DesignTree& tree);

// Stores proposals as nodes of `tree` (a variant of the node whose source is its parent_source,
// when there is one; else a design) and tells `proposer` of each (Proposer::proposed) when it
// came from an agent call. Returns the nodes that are new (not duplicates), in order. Throws
// a Failure (common/result.h) with the store's code when a node cannot be stored.
std::vector<trees::Node> add_proposals(trees::DesignTree& tree, Proposer& proposer,
                                       const std::vector<Proposal>& proposals);

}  // namespace headway::loop
