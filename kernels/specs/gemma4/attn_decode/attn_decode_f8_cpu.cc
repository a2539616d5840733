// The cpu baseline of attn_decode_f8.toml: plain and single-threaded, f32. Per query head, the
// scores of every valid slot, then their softmax, then the weighted sum of the values; each f8
// code decoded through a 256-entry table and multiplied by its slot's and group's scale.
#include <algorithm>
#include <cmath>
#include <vector>

#include "headway_support.h"

typedef struct hw_attn_decode_f8_args {
  const uint16_t* q;        // input bf16 [N, G, D]
  const int32_t* valid;     // input int32 []
  const uint8_t* k_cache;   // input f8e4m3 [T, N, D]
  const uint8_t* v_cache;   // input f8e4m3 [T, N, D]
  const float* k_scale;     // input f32 [T, N]
  const float* v_scale;     // input f32 [T, N]
  uint16_t* attn;           // output bf16 [N, G, D]
  const int64_t* dims;      // T, N, G, D, VMIN
} hw_attn_decode_f8_args;

extern "C" void hw_attn_decode_f8(const hw_attn_decode_f8_args* a) {
  const int64_t n_groups = a->dims[1], g_heads = a->dims[2], d = a->dims[3];
  const int64_t valid = *a->valid;
  const float scale = 1.0f / std::sqrt(static_cast<float>(d));
  static const hw::F8Table f8;
  std::vector<float> score(static_cast<size_t>(valid));
  std::vector<float> acc(static_cast<size_t>(d));
  for (int64_t n = 0; n < n_groups; ++n) {
    for (int64_t g = 0; g < g_heads; ++g) {
      const uint16_t* q = a->q + (n * g_heads + g) * d;
      float maximum = -INFINITY;
      for (int64_t t = 0; t < valid; ++t) {
        const uint8_t* k = a->k_cache + (t * n_groups + n) * d;
        const float k_scale = a->k_scale[t * n_groups + n];
        float s = 0.0f;
        for (int64_t i = 0; i < d; ++i)
          s += hw::bf16_to_f32(q[i]) * (f8.v[k[i]] * k_scale);
        score[t] = s * scale;
        maximum = std::max(maximum, score[t]);
      }
      float sum = 0.0f;
      for (int64_t i = 0; i < d; ++i) acc[i] = 0.0f;
      for (int64_t t = 0; t < valid; ++t) {
        const float p = std::exp(score[t] - maximum);
        sum += p;
        const uint8_t* v = a->v_cache + (t * n_groups + n) * d;
        const float v_scale = a->v_scale[t * n_groups + n];
        for (int64_t i = 0; i < d; ++i) acc[i] += p * (f8.v[v[i]] * v_scale);
      }
      uint16_t* out = a->attn + (n * g_heads + g) * d;
      for (int64_t i = 0; i < d; ++i) out[i] = hw::f32_to_bf16(acc[i] / sum);
    }
  }
}
