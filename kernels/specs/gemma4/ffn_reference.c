/* The f64 reference of ffn.toml (include/headway/headway_reference.h). */
#include <stdlib.h>

#include "gemma4_math.h"

enum { RESIDUAL, PRE_W, GW, GS, UW, US, DW, DS, POST_W, GATE_G, UP_G, DOWN_G, LAYER };

void headway_reference(double* const* a, const int64_t* dims) {
  const int64_t h = dims[0], l = dims[1];
  double* x = malloc(sizeof(double) * (size_t)h);
  double* hidden = malloc(sizeof(double) * (size_t)l);
  double* d = malloc(sizeof(double) * (size_t)h);
  double* normed = malloc(sizeof(double) * (size_t)h);
  gemma4_rms_norm(a[RESIDUAL], a[PRE_W], h, x);
  for (int64_t i = 0; i < h; ++i) x[i] = hw_round_bf16(x[i]);
  const uint8_t *gw = hw_bytes(a[GW]), *gs = hw_bytes(a[GS]);
  const uint8_t *uw = hw_bytes(a[UW]), *us = hw_bytes(a[US]);
  for (int64_t r = 0; r < l; ++r) {
    const double g = gemma4_dot_nvfp4_row(gw + r * h / 2, gs + r * h / 16, x, h) * a[GATE_G][0];
    const double u = gemma4_dot_nvfp4_row(uw + r * h / 2, us + r * h / 16, x, h) * a[UP_G][0];
    hidden[r] = hw_round_bf16(gemma4_gelu_tanh(g) * u);
  }
  const uint8_t *dw = hw_bytes(a[DW]), *dsc = hw_bytes(a[DS]);
  for (int64_t r = 0; r < h; ++r)
    d[r] = gemma4_dot_nvfp4_row(dw + r * l / 2, dsc + r * l / 16, hidden, l) * a[DOWN_G][0];
  gemma4_rms_norm(d, a[POST_W], h, normed);
  for (int64_t i = 0; i < h; ++i) a[RESIDUAL][i] = (a[RESIDUAL][i] + normed[i]) * a[LAYER][0];
  free(normed);
  free(d);
  free(hidden);
  free(x);
}
