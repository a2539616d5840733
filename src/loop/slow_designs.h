#pragma once
// Designs a chip makes slow. A library design can be pathological on one chip while its
// siblings stream near the floor (an instruction that chip runs slowly, a pattern its prefetchers
// miss): once every measured node of it read at least kSlowDesignRatio times what it was
// measured against (the fastest of its race, or the head of its acceptance test), the
// library proposes no more variants of it there, saving the device time of their screens and
// races (loop/library_proposer.h). A design with any node accepted, or judged SAME or
// INCONCLUSIVE against a head, is never slow.
#include <map>
#include <string>
#include <vector>

#include "trees/design_tree.h"

namespace headway::loop {

inline constexpr double kSlowDesignRatio = 2.0;

// The designs of a tree's `nodes` other than `head_design` that are slow, each with why: "its best
// node, 55, read 3.2x the fastest (a race's median, 389.000 ms against its winner's 122.000 ms)".
// Each node counts by a ratio measured in one spell: a raced-out node by its race median over the
// race winner's; a node the acceptance test found SLOWER by its effect (1 - effect/100 times
// the head it was tested against). Nodes never timed (screened out, failed to build), and races
// recorded without their winner's median, do not count.
std::map<std::string, std::string> slow_designs(const std::vector<trees::Node>& nodes,
                                                const std::string& head_design);

}  // namespace headway::loop
