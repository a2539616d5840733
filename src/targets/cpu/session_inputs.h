#pragma once
// A timed session's input sets: how many it needs, how many calls a reading may make of them,
// and the sets themselves, kept in the process for the next session of the same kernel.
#include <cstdint>
#include <memory>

#include "kernels/contract.h"
#include "kernels/input_sets.h"

namespace headway::cpu {

// Timed calls a reading may make for a kernel whose input block is `set_bytes` and whose writable
// slot is `slot_bytes` (each call needs a set and a slot of its own, so short kernels, which move
// few bytes, may make more).
int max_calls_per_reading(uint64_t set_bytes, uint64_t slot_bytes);

// Timed calls a reading makes when the fastest arm's call took `fastest_seconds`: the fewest
// whose time reaches `timed_seconds` (so that a reading's fixed costs, its process start, guard
// and warm-up call, are shared by at least that much kernel time), at most
// max_calls_per_reading(set_bytes, slot_bytes), at least 1.
int calls_per_reading_for(double timed_seconds, double fastest_seconds, uint64_t set_bytes,
                          uint64_t slot_bytes);

// The input sets of a session: the ones an earlier session of `kernel` with as many sets and
// draws left in this process when no session holds them now (every reading restores the sets it
// patched), else new ones drawn from `seed`. So inputs are drawn and laid out once per kernel and
// process, not per race or test (about a second for ffn). A reused draw keeps its first seed: no
// timed call's inputs are reproducible from a seed anyway, since each is patched from a secret
// one.
std::shared_ptr<InputSets> shared_input_sets(const KernelContract& kernel, uint64_t seed, int sets,
                                             int draws = 1);

// A writable block of `slots` slots for the kernel of `inputs` (InputSets::new_writable_block):
// one an earlier session of the same kernel and layout left in this process when no session holds
// it now, else a new one. A kept block holds what its last process wrote: a session resets each
// slot of an arm's block before every child maps it (TimedSession::reading). So a race's and a
// test's blocks are made once per kernel and process, not per session (qkv's 32 MiB a block: 60-90
// ms each on 2 MiB pages that a hypervisor backs afresh). Blocks are kept for the life of the
// process: as many per kernel, layout and slot count as sessions held at once.
std::shared_ptr<SharedMemory> shared_writable_block(const InputSets& inputs, int slots);

// Input sets needed so that a set is used again only after cold_bytes of other sets, when a
// reading uses `window` consecutive sets (a warm-up set and its timed sets).
int input_sets_for(uint64_t set_bytes, uint64_t cold_bytes, int window = 2);

}  // namespace headway::cpu
