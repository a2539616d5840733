#pragma once
// The readings this process has checked whole. A timed session keeps every call of an arm's
// first reading of each length for the reference (timed_session.h): a child knows which call of
// its batch it is, so each position of a batch is checked once. A child cannot tell which
// session it serves (each reading is a fresh process on freshly patched sets whose place in the
// rotation is secret), so a reading of an object checked whole and found right stands for every
// later session of the same kernel layout in this process, and those keep their sampled calls
// only. Thread-safe: sessions of several kernels may run at once.
#include <cstdint>
#include <filesystem>
#include <optional>
#include <string>

#include "kernels/contract.h"

namespace headway::cpu {

// What a whole check covers: the object's bytes, the kernel's layout (a spec kernel's shape sets
// share its name, not its regions) and whether its children ran on one core (a child sees its
// affinity, so one-core readings are readings of another kind).
struct WholeReadingKey {
  std::string kernel;
  std::string layout;
  uint64_t object_hash = 0;
  bool one_core = false;
  auto operator<=>(const WholeReadingKey&) const = default;
};

// The key of `object` (a built candidate) read for `kernel`; nullopt when the object cannot be
// read (its readings are then checked whole in every session).
std::optional<WholeReadingKey> whole_reading_key(const KernelContract& kernel,
                                                 const std::filesystem::path& object,
                                                 bool one_core);

// The longest reading of `key` checked whole and found right in this process; 0 when none.
int checked_whole_length(const WholeReadingKey& key);

// Records that a reading of `length` calls of `key` was checked whole and found right.
void record_checked_whole(const WholeReadingKey& key, int length);

}  // namespace headway::cpu
