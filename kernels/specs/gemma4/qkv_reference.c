/* The f64 reference of qkv.toml (include/headway/headway_reference.h). */
#include <stdlib.h>

#include "gemma4_math.h"

enum { X, IN_W, QW, KW, VW, QSC, KSC, VSC, QRW, KRW, COS, SIN, QOUT, KCACHE, VCACHE, SLOT };

/* Projects `rows` rows of one weight, then normalizes (and rotates) each head of ds rows. */
static void project(const uint8_t* w, const double* scale, const double* head_weight, int rotate,
                    const double* xn, const double* cos_table, const double* sin_table,
                    int64_t rows, int64_t h, int64_t ds, double* out) {
  double* pre = malloc(sizeof(double) * (size_t)rows);
  double* normed = malloc(sizeof(double) * (size_t)ds);
  for (int64_t r = 0; r < rows; ++r)
    pre[r] = hw_round_bf16(gemma4_dot_f8_row(w + r * h, xn, h) * scale[r]);
  for (int64_t head = 0; head < rows / ds; ++head) {
    if (rotate) {
      gemma4_rms_norm(pre + head * ds, head_weight, ds, normed);
      gemma4_rope(normed, cos_table, sin_table, ds, out + head * ds);
    } else {
      gemma4_rms_norm(pre + head * ds, NULL, ds, out + head * ds);
    }
  }
  free(normed);
  free(pre);
}

void headway_reference(double* const* a, const int64_t* dims) {
  const int64_t h = dims[0], qs = dims[1], ps = dims[2], ds = dims[3];
  double* xn = malloc(sizeof(double) * (size_t)h);
  gemma4_rms_norm(a[X], a[IN_W], h, xn);
  for (int64_t i = 0; i < h; ++i) xn[i] = hw_round_bf16(xn[i]);
  const int64_t slot = (int64_t)a[SLOT][0];
  project(hw_bytes(a[QW]), a[QSC], a[QRW], 1, xn, a[COS], a[SIN], qs, h, ds, a[QOUT]);
  project(hw_bytes(a[KW]), a[KSC], a[KRW], 1, xn, a[COS], a[SIN], ps, h, ds, a[KCACHE] + slot * ps);
  project(hw_bytes(a[VW]), a[VSC], NULL, 0, xn, a[COS], a[SIN], ps, h, ds, a[VCACHE] + slot * ps);
  free(xn);
}
