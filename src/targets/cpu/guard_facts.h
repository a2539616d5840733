#pragma once
// What the trusted gate's guard costs on this chip, per step it cannot avoid
// (timed_session.h): flushing the timed sets from the caches, starting a process, stopping and
// resuming one. Measured as chip facts, so that a chip headway was never run on shows the cost
// of a reading's guard in its facts before any decision.
#include <cstdint>
#include <string>

namespace headway::cpu {

struct GuardFacts {
  double clflush_gbps = 0.0;     // flushing with clflush, GB/s of the lines flushed
  double clflushopt_gbps = 0.0;  // with clflushopt; 0 where the CPU has none
  std::string flush_used;        // the instruction the gate uses here (best_flush_instruction)
  uint64_t flush_bytes = 0;      // bytes flushed per reading of the rate
  double fork_wait_ms = 0.0;     // fork, the child's _exit and waitpid: the least a reading's
                                 // process costs
  double stop_resume_ms = 0.0;   // SIGSTOP to a spinning child until it is seen stopped, then
                                 // SIGCONT until it is seen running
  std::string method;
};

// Medians of `readings` (at least 3) of each. Throws std::runtime_error when a process cannot
// be started.
GuardFacts measure_guard_facts(int readings = 7);

}  // namespace headway::cpu
