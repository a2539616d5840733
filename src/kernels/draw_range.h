#pragma once
// Whether a kernel spec's draws stay within their arguments' element types (docs/KERNELS.md,
// "Kernel specs"): a value a type cannot hold would be stored saturated, a different input from
// the one the spec asks for, so load_kernel_spec refuses the spec instead.
#include <cstddef>
#include <string>

#include "common/result.h"
#include "kernels/kernel_spec.h"

namespace headway {

// The draw as a spec writes it: `below = 256`, `below = "T"`, `uniform = [-128, 127]`,
// `constant = 0`, `normal = 1`, `codes = true`.
std::string draw_text(const Draw& draw);

// An invalid-input error when argument `a`'s draw can give a value its element type does not
// hold at some shape set of `spec`: an integer type's `uniform` and `constant` values must be
// integers within its range and `below` must stay within it at every shape set; a floating type's
// `uniform` and `constant` values must lie within its finite range. The message names the
// argument, the draw as written, the value at fault and the type's range, e.g.
// "argument 'w': below = 256 draws up to 255, outside int8's range -128 to 127".
Result<void> check_draw_range(const KernelSpec& spec, size_t a);

}  // namespace headway
