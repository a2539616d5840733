#pragma once
// A decode step's kernels read back to back in step order, round after round, over one Session
// per kernel (each holding that kernel's one artifact): the figure a serving engine feels when
// each layer's weights stream through memory. Each reading is the target's own reading of one
// kernel (on the cpu target: one fresh runner process whose timed calls find their inputs out of
// the caches); the kernels are not fused into one process or call.
#include <functional>
#include <string>
#include <vector>

#include "targets/target.h"

namespace headway::targets {

struct StepRounds {
  // seconds[round][k]: the reading of kernel k in that round; k in the order of the sessions.
  std::vector<std::vector<double>> seconds;
  std::vector<double> step_seconds;  // per round: the sum of its readings
  std::string failure;               // non-empty: a reading failed or an arm broke a rule
  bool cheated = false;              // the failure is a broken rule of timing
  bool ok() const { return failure.empty(); }
};

// What runs after each timed round's readings, before the next round (a measurement of the floor
// in that round's spell): an empty string, or why the run ends.
using AfterRound = std::function<std::string()>;

// `warmup_rounds` untimed rounds, then `rounds` rounds; each round takes one reading of arm 0 of
// every session, in the order given (the step's order), and then, for a timed round, calls
// `after_round` where given. Then every session verifies its arms. A failed reading, a breach or
// an after_round's failure ends the run: `failure` names the kernel (`names[k]`) or says
// "after round N", and says why, and the rounds read so far stay.
StepRounds read_decode_step(const std::vector<Session*>& sessions,
                            const std::vector<std::string>& names, int rounds,
                            int warmup_rounds = 1, const AfterRound& after_round = {});

}  // namespace headway::targets
