#pragma once
// A decode step's kernels read back to back in step order, round after round, over one Session
// per kernel (each holding that kernel's one artifact): the figure a serving engine feels when
// each layer's weights stream through memory. Each reading is the target's own reading of one
// kernel (on the cpu target: one fresh runner process whose timed calls find their inputs out of
// the caches); the kernels are not fused into one process or call.
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

// `warmup_rounds` untimed rounds, then `rounds` rounds; each round takes one reading of arm 0 of
// every session, in the order given (the step's order). Then every session verifies its arms. A
// failed reading or a breach ends the run: `failure` names the kernel (`names[k]`) and says why,
// and the rounds read so far stay.
StepRounds read_decode_step(const std::vector<Session*>& sessions,
                            const std::vector<std::string>& names, int rounds,
                            int warmup_rounds = 1);

}  // namespace headway::targets
