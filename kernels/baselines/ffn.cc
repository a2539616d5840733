// ffn baseline: the plain, correct, single-threaded first version. e2m1 codes decoded through
// the 16-entry table, block scales through the 256-entry f8 table, rows walked in memory
// order, f32 accumulation.
#include "headway_kernel.h"
#include "headway_support.h"

namespace {

const hw::F8Table kF8;
const hw::E2m1Table kFp4;

// One NVFP4 row of n elements dotted with x (no global scale).
float dot_row(const uint8_t* codes, const uint8_t* block_scales, const float* x, int n) {
  float total = 0.0f;
  for (int b = 0; b < n / HW_FP4_BLOCK; ++b) {
    float block = 0.0f;
    for (int k = 0; k < HW_FP4_BLOCK / 2; ++k) {
      const uint8_t byte = codes[b * 8 + k];
      block += kFp4.v[byte & 0xf] * x[b * 16 + 2 * k] + kFp4.v[byte >> 4] * x[b * 16 + 2 * k + 1];
    }
    total += block * kF8.v[block_scales[b]];
  }
  return total;
}

}  // namespace

extern "C" void hw_ffn(const hw_ffn_args* a) {
  float residual[HW_H], x[HW_H], d[HW_H], h[HW_L];
  for (int j = 0; j < HW_H; ++j) residual[j] = hw::bf16_to_f32(a->residual[j]);
  const float inv = hw::rms_inv(residual, HW_H);
  for (int j = 0; j < HW_H; ++j) {
    x[j] = hw::bf16_to_f32(hw::f32_to_bf16(residual[j] * inv * hw::bf16_to_f32(a->pre_ff_rms_weight[j])));
  }
  for (int r = 0; r < HW_L; ++r) {
    const size_t codes = static_cast<size_t>(r) * HW_H / 2, blocks = static_cast<size_t>(r) * HW_H / 16;
    const float g = dot_row(a->gate_weight + codes, a->gate_block_scale + blocks, x, HW_H) * a->gate_global_scale;
    const float u = dot_row(a->up_weight + codes, a->up_block_scale + blocks, x, HW_H) * a->up_global_scale;
    h[r] = hw::bf16_to_f32(hw::f32_to_bf16(hw::gelu_tanh(g) * u));
  }
  for (int r = 0; r < HW_H; ++r) {
    const size_t codes = static_cast<size_t>(r) * HW_L / 2, blocks = static_cast<size_t>(r) * HW_L / 16;
    d[r] = dot_row(a->down_weight + codes, a->down_block_scale + blocks, h, HW_L) * a->down_global_scale;
  }
  const float inv_d = hw::rms_inv(d, HW_H);
  const float layer_scalar = hw::bf16_to_f32(a->layer_scalar);
  for (int r = 0; r < HW_H; ++r) {
    const float normed = d[r] * inv_d * hw::bf16_to_f32(a->post_ff_rms_weight[r]);
    a->residual[r] = hw::f32_to_bf16((residual[r] + normed) * layer_scalar);
  }
}
