// The cpu baseline of gemv_f8.toml: plain, single-threaded f32.
#include "headway_support.h"

typedef struct hw_gemv_f8_args {
  const uint16_t* x;      // input bf16 [K]
  const uint8_t* w;       // weight f8e4m3 [N, K]
  const uint16_t* scale;  // weight bf16 [N]
  float* y;               // output f32 [N]
  const int64_t* dims;    // N, K
} hw_gemv_f8_args;

extern "C" void hw_gemv_f8(const hw_gemv_f8_args* a) {
  const int64_t n = a->dims[0], k = a->dims[1];
  for (int64_t r = 0; r < n; ++r) {
    float acc = 0.0f;
    for (int64_t c = 0; c < k; ++c) acc += hw::f8e4m3_to_f32(a->w[r * k + c]) * hw::bf16_to_f32(a->x[c]);
    a->y[r] = acc * hw::bf16_to_f32(a->scale[r]);
  }
}
