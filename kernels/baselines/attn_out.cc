// attn_out baseline: the plain, correct, single-threaded first version. Weights decoded through
// the 256-entry f8 table, rows walked in memory order, f32 accumulation.
#include "headway_kernel.h"
#include "headway_support.h"

namespace {
const hw::F8Table kF8;
}  // namespace

extern "C" void hw_attn_out(const hw_attn_out_args* a) {
  float attn[HW_QS], y[HW_H];
  for (int j = 0; j < HW_QS; ++j) attn[j] = hw::bf16_to_f32(a->attn[j]);
  for (int r = 0; r < HW_H; ++r) {
    const uint8_t* row = a->o_weight + static_cast<size_t>(r) * HW_QS;
    float acc = 0.0f;
    for (int j = 0; j < HW_QS; ++j) acc += kF8.v[row[j]] * attn[j];
    y[r] = hw::bf16_to_f32(hw::f32_to_bf16(acc * hw::bf16_to_f32(a->o_scale[r])));
  }
  const float inv = hw::rms_inv(y, HW_H);
  for (int r = 0; r < HW_H; ++r) {
    const float normed = y[r] * inv * hw::bf16_to_f32(a->post_attn_rms_weight[r]);
    a->residual[r] = hw::f32_to_bf16(hw::bf16_to_f32(a->residual[r]) + normed);
  }
}
