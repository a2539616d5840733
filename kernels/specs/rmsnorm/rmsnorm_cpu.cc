// The cpu baseline of rmsnorm.toml: plain, single-threaded f32.
#include "headway_support.h"

typedef struct hw_rmsnorm_args {
  const uint16_t* x;       // input bf16 [N]
  const uint16_t* weight;  // weight bf16 [N]
  uint16_t* out;           // output bf16 [N]
  const int64_t* dims;     // N
} hw_rmsnorm_args;

extern "C" void hw_rmsnorm(const hw_rmsnorm_args* a) {
  const int n = static_cast<int>(a->dims[0]);
  float sum_sq = 0.0f;
  for (int i = 0; i < n; ++i) {
    const float v = hw::bf16_to_f32(a->x[i]);
    sum_sq += v * v;
  }
  const float inv = 1.0f / std::sqrt(sum_sq / static_cast<float>(n) + 1e-6f);
  for (int i = 0; i < n; ++i)
    a->out[i] = hw::f32_to_bf16(hw::bf16_to_f32(a->x[i]) * inv * hw::bf16_to_f32(a->weight[i]));
}
