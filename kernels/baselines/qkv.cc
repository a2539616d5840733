// qkv baseline: the plain, correct, single-threaded first version. Weights decoded through the
// 256-entry f8 table, rows walked in memory order, f32 accumulation.
#include "headway_kernel.h"
#include "headway_support.h"

namespace {

const hw::F8Table kF8;

// q/k/v for one weight matrix: rows of H codes, then per-head RMSNorm (weight optional), RoPE
// (optional), bf16 output.
void project(const uint8_t* w, const hw_bf16* scale, int rows, const float* xn,
             const hw_bf16* head_weight, const hw_bf16* cos, const hw_bf16* sin, hw_bf16* out) {
  float pre[HW_DS], normed[HW_DS];
  for (int h = 0; h < rows / HW_DS; ++h) {
    for (int d = 0; d < HW_DS; ++d) {
      const int r = h * HW_DS + d;
      const uint8_t* row = w + static_cast<size_t>(r) * HW_H;
      float acc = 0.0f;
      for (int j = 0; j < HW_H; ++j) acc += kF8.v[row[j]] * xn[j];
      pre[d] = hw::bf16_to_f32(hw::f32_to_bf16(acc * hw::bf16_to_f32(scale[r])));
    }
    const float inv = hw::rms_inv(pre, HW_DS);
    for (int d = 0; d < HW_DS; ++d) {
      normed[d] = pre[d] * inv * (head_weight ? hw::bf16_to_f32(head_weight[d]) : 1.0f);
    }
    for (int d = 0; d < HW_DS; ++d) {
      float v = normed[d];
      if (cos) {
        const float rotated = d < HW_DS / 2 ? -normed[d + HW_DS / 2] : normed[d - HW_DS / 2];
        v = normed[d] * hw::bf16_to_f32(cos[d]) + rotated * hw::bf16_to_f32(sin[d]);
      }
      out[h * HW_DS + d] = hw::f32_to_bf16(v);
    }
  }
}

}  // namespace

extern "C" void hw_qkv(const hw_qkv_args* a) {
  float x[HW_H], xn[HW_H];
  for (int j = 0; j < HW_H; ++j) x[j] = hw::bf16_to_f32(a->x[j]);
  const float inv = hw::rms_inv(x, HW_H);
  for (int j = 0; j < HW_H; ++j) {
    xn[j] = hw::bf16_to_f32(hw::f32_to_bf16(x[j] * inv * hw::bf16_to_f32(a->input_rms_weight[j])));
  }
  const size_t slot = static_cast<size_t>(a->kv_slot) * HW_NS * HW_DS;
  project(a->q_weight, a->q_scale, HW_QS, xn, a->q_rms_weight, a->cos, a->sin, a->q_out);
  project(a->k_weight, a->k_scale, HW_PS, xn, a->k_rms_weight, a->cos, a->sin, a->k_cache + slot);
  project(a->v_weight, a->v_scale, HW_PS, xn, nullptr, nullptr, nullptr, a->v_cache + slot);
}
