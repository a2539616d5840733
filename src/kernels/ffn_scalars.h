#pragma once
// The ffn kernel's four scalar arguments, which its ABI (include/headway/headway_kernel.h) passes
// by value: read from their regions (kernels/specs/gemma4/ffn.toml) by the targets that call it.
#include "kernels/numerics.h"
#include "kernels/shared_buffers.h"

namespace headway {

struct FfnScalars {
  float gate_global_scale = 0;
  float up_global_scale = 0;
  float down_global_scale = 0;
  bf16 layer_scalar = 0;
};
FfnScalars read_ffn_scalars(const SharedBuffers& buffers);

}  // namespace headway
