#pragma once
// Timing artifacts side by side over a target's Session (Target::time_side_by_side for targets
// whose sessions read one arm at a time).
#include <vector>

#include "targets/target.h"

namespace headway::targets {

// `warmup_rounds` untimed rounds, then `readings` rounds of one reading per arm, each round
// starting one arm later than the last; then the session verifies its arms. A failed reading or
// a breach fails every result (cheated when the session found an arm breaking a rule), with the
// failing artifact's id in front of the reason. Every result carries the session's accounting.
std::vector<Timing> read_side_by_side(Session& session, const std::vector<Artifact>& artifacts,
                                      int readings, int warmup_rounds = 2);

}  // namespace headway::targets
