#pragma once
// What `headway kernel check` asks of a spec's contract before any candidate runs on it: that its
// reference writes something finite everywhere it is judged, that outputs holding the reference's
// values (rounded to their element types) pass, and that an output off by half its root mean
// square fails. A tolerance
// too tight for the output's type, or so loose that a wrong value passes, is caught here.
#include <cstdint>

#include "common/result.h"
#include "kernels/contract.h"

namespace headway {

// Draws inputs with `seed` and judges the contract's own outputs: an error saying which of the
// three properties fails, with the region and element.
Result<void> self_check(const KernelContract& kernel, uint64_t seed);

// self_check in a child process (fork), so that a reference that crashes or hangs is an error
// saying so ("the reference crashed: SIGSEGV", "... ran past N s") rather than the end of
// headway. Call it while the process has one thread: the child runs the reference, which may
// allocate.
Result<void> self_check_in_child(const KernelContract& kernel, uint64_t seed,
                                 double timeout_seconds = 600.0);

}  // namespace headway
