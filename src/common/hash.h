#pragma once
// 64-bit content hashes: not cryptographic, not for addressing (content-addressed artifacts are
// named by store/sha256.h).
#include <cstddef>
#include <cstdint>

namespace headway {

// XXH3-64 (xxHash) of the n bytes at `data`. For change detection within a run (the gate's
// snapshots of a kernel's regions before and after a call) and for the names of cached builds.
// Its values may change with headway's version: a value kept across runs may only be a cache key,
// which then misses once.
uint64_t hash_bytes(const void* data, size_t n);

// A hash whose values never change: the sim target's landscape (a candidate's true time and its
// static cost's error), its and the loop tests' target's artifact ids and check seeds, and the
// built-in kernels' golden inputs are made of its values, so that a sim result replays on any
// headway. Slower than hash_bytes on long inputs; use hash_bytes unless the value must stay.
uint64_t stable_hash_bytes(const void* data, size_t n);

}  // namespace headway
