#pragma once
// Judging one kernel call: outputs against the reference, and memory the kernel must not write.
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "kernels/contract.h"
#include "kernels/numerics.h"

namespace headway {

// The bf16 pattern written into bf16 outputs before a call (fill_poison, kernels/element_type.h,
// has every type's); an element that still holds it after the call was not written. It is a NaN,
// so it can never pass the tolerance check.
inline constexpr bf16 kPoison = 0x7fa5;

// Hashes of everything the kernel must leave alone: whole input regions, and cache regions
// row by row.
struct Snapshot {
  std::vector<uint64_t> region_hash;              // per region (0 where not hashed)
  std::vector<std::vector<uint64_t>> row_hashes;  // per region (empty where not a cache)
};

// Writes the poison of its element type into every kOutput region and into the expected rows of
// kCache regions.
void poison_outputs(SharedBuffers& buffers, const std::vector<ExpectedOutput>& expected);
Snapshot take_snapshot(const SharedBuffers& buffers);

struct Violation {
  enum class Kind {
    kWroteInput,        // an input region changed
    kWroteOutsideRows,  // a cache row outside the written rows changed (row in index)
    kNotWritten,        // an output element still holds the poison
    kNonFinite,         // an output element is NaN or infinite
    kWrongValue,        // an output element is outside the tolerance
    kUnchanged,         // an in/out region is bit for bit as the call was given it
  } kind = Kind::kWrongValue;
  std::string region;
  size_t index = 0;  // element index in the region (row index for kWroteOutsideRows)
  double got = 0.0;
  double expected = 0.0;
  double tolerance = 0.0;  // atol + rtol*|expected|
  size_t failing = 0;      // how many output elements failed in all
  std::string describe() const;
};

// "wrote-input", "wrote-outside-rows", "not-written", "non-finite", "wrong-value", "unchanged".
const char* to_string(Violation::Kind kind);

// Hashes of the kInOut regions (0 for the others): what a call is given to update.
std::vector<uint64_t> hash_inout_regions(const SharedBuffers& buffers);

// A screen of a call's writes that needs no reference, cheap enough for every timed call: the
// first output element still holding kPoison or not finite, or an in/out region left bit for bit
// as it was given (`given`: hash_inout_regions before the call; every kernel's in/out update
// changes its region). A call that skipped its work fails it; one that passes may still be
// wrong, which only verify can tell.
std::optional<Violation> screen_writes(const SharedBuffers& buffers,
                                       const std::vector<uint64_t>& given);

// How close a call's writes came to failing: the largest |got - expected| / (atol + rtol *
// |expected|) over the elements of `expected` (below 1 where verify_values finds nothing; infinity
// for a poison or non-finite element; 0 when nothing is expected), with the element it was found
// at as a kWrongValue Violation (`tolerance` the allowed error there).
struct ErrorShare {
  double share = 0.0;
  std::optional<Violation> at;
};
ErrorShare error_share(const KernelContract& kernel, const SharedBuffers& buffers,
                       const std::vector<ExpectedOutput>& expected);

// Two calls on the same inputs (the same input block and the same writable regions as given):
// the first element of a writable region (output, in/out or cache) where what `a` left and what
// `b` left differ by more than `share` of the tolerance about the larger of the two (a NaN
// differs from everything but the same bytes), as a kWrongValue with `b`'s value as expected;
// nullopt where they agree everywhere. A call that agrees with a correct one within half the
// tolerance is within one and a half of it; a call more than a tolerance off the reference agrees
// at share 1/2 only with a call itself more than half a tolerance off.
std::optional<Violation> disagreement(const KernelContract& kernel, const SharedBuffers& a,
                                      const SharedBuffers& b, double share);
// As above, where the two writable blocks are known alike outside `ranges` (byte offsets in the
// writable block, sorted, apart): only the bytes inside them are compared.
std::optional<Violation> disagreement_within(const KernelContract& kernel, const SharedBuffers& a,
                                             const SharedBuffers& b, double share,
                                             const std::vector<std::pair<size_t, size_t>>& ranges);

// Two arms' calls on the same inputs agree when no written element differs by more than this
// share of the kernel's tolerance (disagreement).
inline constexpr double kAgreeShare = 0.5;

// The first forbidden write found, else the worst output element (poison and non-finite
// count as worst), else nothing: the call was correct.
std::optional<Violation> verify(const KernelContract& kernel, const SharedBuffers& buffers,
                                const Snapshot& before,
                                const std::vector<ExpectedOutput>& expected);
// Only the last part of verify: the worst output element against `expected`, or nothing. For
// writes judged apart from the call that made them, on inputs rebuilt for the judgement.
std::optional<Violation> verify_values(const KernelContract& kernel, const SharedBuffers& buffers,
                                       const std::vector<ExpectedOutput>& expected);

}  // namespace headway
