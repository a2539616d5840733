/* The f64 reference of attn_out.toml (include/headway/headway_reference.h). */
#include <stdlib.h>

#include "gemma4_math.h"

enum { ATTN, OW, OSC, POST_W, RESIDUAL };

void headway_reference(double* const* a, const int64_t* dims) {
  const int64_t h = dims[0], qs = dims[1];
  const uint8_t* w = hw_bytes(a[OW]);
  double* y = malloc(sizeof(double) * (size_t)h);
  double* normed = malloc(sizeof(double) * (size_t)h);
  for (int64_t r = 0; r < h; ++r)
    y[r] = hw_round_bf16(gemma4_dot_f8_row(w + r * qs, a[ATTN], qs) * a[OSC][r]);
  gemma4_rms_norm(y, a[POST_W], h, normed);
  for (int64_t i = 0; i < h; ++i) a[RESIDUAL][i] += normed[i];
  free(normed);
  free(y);
}
