/* The f64 building blocks the Gemma-4 references share: RMSNorm, RoPE, tanh GELU and dot
 * products over encoded f8e4m3 and nvfp4 rows, each summed in element order. */
#ifndef GEMMA4_MATH_H
#define GEMMA4_MATH_H
#include <math.h>

#include "headway_reference.h"

/* The contracts' epsilon: 1e-6 as an f32, widened. */
#define GEMMA4_EPS ((double)1e-6f)

/* out[i] = x[i] / sqrt(mean(x^2) + eps) * (weight ? weight[i] : 1). */
static void gemma4_rms_norm(const double* x, const double* weight, int64_t n, double* out) {
  double sum_sq = 0.0;
  for (int64_t i = 0; i < n; ++i) sum_sq += x[i] * x[i];
  const double inv = 1.0 / sqrt(sum_sq / (double)n + GEMMA4_EPS);
  for (int64_t i = 0; i < n; ++i) out[i] = x[i] * inv * (weight ? weight[i] : 1.0);
}

/* Rotates a head of d values by the position's table (the halves pair up). */
static void gemma4_rope(const double* x, const double* cos_table, const double* sin_table,
                        int64_t d, double* out) {
  const int64_t half = d / 2;
  for (int64_t i = 0; i < d; ++i) {
    const double rotated = i < half ? -x[i + half] : x[i - half];
    out[i] = x[i] * cos_table[i] + rotated * sin_table[i];
  }
}

static double gemma4_gelu_tanh(double x) {
  return 0.5 * x * (1.0 + tanh(0.7978845608028654 * (x + 0.044715 * x * x * x)));
}

/* The value of every f8e4m3 code. */
static const double* gemma4_f8_values(void) {
  static double table[256];
  static int ready = 0;
  if (!ready) {
    for (int c = 0; c < 256; ++c) table[c] = hw_f8e4m3_value((uint8_t)c);
    ready = 1;
  }
  return table;
}

/* sum_j f8(row[j]) * x[j]. */
static double gemma4_dot_f8_row(const uint8_t* row, const double* x, int64_t n) {
  /* Four partial sums, so that the additions do not wait on one another: the order of f64
   * additions moves the sum by far less than any tolerance. */
  const double* f8 = gemma4_f8_values();
  double sum[4] = {0.0, 0.0, 0.0, 0.0};
  int64_t j = 0;
  for (; j + 4 <= n; j += 4)
    for (int k = 0; k < 4; ++k) sum[k] += f8[row[j + k]] * x[j + k];
  for (; j < n; ++j) sum[0] += f8[row[j]] * x[j];
  return (sum[0] + sum[1]) + (sum[2] + sum[3]);
}

/* sum_j e2m1(code j) * f8(block_scales[j / 16]) * x[j], blocks of 16 summed first; codes hold
 * two elements a byte, the even one in the low nibble. */
static double gemma4_dot_nvfp4_row(const uint8_t* codes, const uint8_t* block_scales,
                                   const double* x, int64_t n) {
  static const double e2m1[16] = {0.0,  0.5,  1.0,  1.5,  2.0,  3.0,  4.0,  6.0,
                                  -0.0, -0.5, -1.0, -1.5, -2.0, -3.0, -4.0, -6.0};
  const double* f8 = gemma4_f8_values();
  double total = 0.0;
  for (int64_t b = 0; b * 16 < n; ++b) {
    double block = 0.0;
    for (int64_t k = 0; k < 8; ++k) {
      const uint8_t byte = codes[b * 8 + k];
      block += e2m1[byte & 0xf] * x[b * 16 + 2 * k] + e2m1[byte >> 4] * x[b * 16 + 2 * k + 1];
    }
    total += block * f8[block_scales[b]];
  }
  return total;
}

#endif /* GEMMA4_MATH_H */
