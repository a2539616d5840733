#include "kernels/ffn_scalars.h"

namespace headway {

FfnScalars read_ffn_scalars(const SharedBuffers& b) {
  FfnScalars s;
  s.gate_global_scale = b.as<float>("gate_global_scale")[0];
  s.up_global_scale = b.as<float>("up_global_scale")[0];
  s.down_global_scale = b.as<float>("down_global_scale")[0];
  s.layer_scalar = b.as<bf16>("layer_scalar")[0];
  return s;
}

}  // namespace headway
