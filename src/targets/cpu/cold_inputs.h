#pragma once
// Evidence that a timed call meets its inputs cold: how TimedSession keeps them out of the caches
// (a rotation of input sets, each reused only after twice the largest cache the OS reports of
// other sets went by; every line of a timed set is flushed besides, against a candidate that
// brought it in) and what a load into a set costs when its turn comes again, beside a load into
// a set just read. Recorded as a chip fact (cpu_chip_facts.cc) so that the choice and its
// evidence sit with the other facts of the chip.
#include <cstdint>
#include <string>

#include "kernels/contract.h"

namespace headway::cpu {

struct ColdInputs {
  int sets = 0;             // input sets in the rotation
  uint64_t set_bytes = 0;   // bytes of one set
  uint64_t cold_bytes = 0;  // traffic of other sets between two uses of a set
  double cold_ns = 0.0;     // ns per dependent random load into a set whose turn came again
  double warm_ns = 0.0;     // the same loads into a set just read
  std::string method;       // one line: how it was measured
};

// Nanoseconds per load of a chain of dependent loads at random lines of [block, block + bytes):
// a few nanoseconds where the block is in a cache, about a memory latency where it is not.
double dependent_load_ns(const std::byte* block, size_t bytes, uint64_t seed);

// Lays out `kernel`'s rotation as a timed session would (its input block, calls per reading
// at most) and walks one set after every other set was read. Takes about as long as reading the
// rotation twice (about 1 GiB on a machine whose OS reports a 260 MiB cache).
ColdInputs measure_cold_inputs(const KernelContract& kernel);

}  // namespace headway::cpu
