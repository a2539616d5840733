/* Gemma-4 decode attention in f64, shared by the references of attn_decode.toml and
 * attn_decode_f8.toml, and their generator's draw of the valid slots.
 *
 * attn[n][g] = sum_t p[t] * V[t][n] over the valid slots t < valid, with
 * p = softmax_t(q[n][g] . K[t][n] / sqrt(D)): the G query heads of KV group n share its keys and
 * values. An online softmax: one pass over the slots keeps each head's running maximum, the sum of
 * exp(score - maximum) and the weighted sum of values, rescaled when the maximum grows. */
#ifndef ATTN_DECODE_H
#define ATTN_DECODE_H
#include <math.h>
#include <stdlib.h>

#include "headway_reference.h"

/* Writes slot t's key (kv = 0) or value (kv = 1) row of KV group n, d values, decoded exactly
 * from the cache `ctx` holds. */
typedef void (*attn_decode_row)(const void* ctx, int kv, int64_t t, int64_t n, double* row);

/* attn (n_groups * g_heads * d values, head n*G+g at row n*G+g) from q (the same layout) over
 * the slots 0 .. valid-1 (1 <= valid), each output rounded once to bf16. */
static void attn_decode_f64(const double* q, int64_t valid, int64_t n_groups, int64_t g_heads,
                            int64_t d, attn_decode_row load, const void* ctx, double* attn) {
  const double scale = 1.0 / sqrt((double)d);
  double* k = malloc(sizeof(double) * (size_t)d);
  double* v = malloc(sizeof(double) * (size_t)d);
  double* acc = malloc(sizeof(double) * (size_t)(g_heads * d));
  double* maximum = malloc(sizeof(double) * (size_t)g_heads);
  double* sum = malloc(sizeof(double) * (size_t)g_heads);
  for (int64_t n = 0; n < n_groups; ++n) {
    for (int64_t g = 0; g < g_heads; ++g) {
      maximum[g] = -INFINITY;
      sum[g] = 0.0;
      for (int64_t i = 0; i < d; ++i) acc[g * d + i] = 0.0;
    }
    for (int64_t t = 0; t < valid; ++t) {
      load(ctx, 0, t, n, k);
      load(ctx, 1, t, n, v);
      for (int64_t g = 0; g < g_heads; ++g) {
        const double* qh = q + (n * g_heads + g) * d;
        double score = 0.0;
        for (int64_t i = 0; i < d; ++i) score += qh[i] * k[i];
        score *= scale;
        if (score > maximum[g]) {
          const double shrink = exp(maximum[g] - score); /* 0 at the first slot */
          sum[g] *= shrink;
          for (int64_t i = 0; i < d; ++i) acc[g * d + i] *= shrink;
          maximum[g] = score;
        }
        const double p = exp(score - maximum[g]);
        sum[g] += p;
        for (int64_t i = 0; i < d; ++i) acc[g * d + i] += p * v[i];
      }
    }
    for (int64_t g = 0; g < g_heads; ++g)
      for (int64_t i = 0; i < d; ++i)
        attn[(n * g_heads + g) * d + i] = hw_round_bf16(acc[g * d + i] / sum[g]);
  }
  free(sum);
  free(maximum);
  free(acc);
  free(v);
  free(k);
}

/* The number of valid slots of an input set: all t_slots when min_valid >= t_slots (a global
 * layer's cache, or a full ring); otherwise a full ring with probability 1/2 (the steady state
 * once the context passes the window) and else uniform from min_valid to t_slots - 1 (a ring not
 * yet filled). */
static int64_t attn_decode_draw_valid(uint64_t seed, int64_t t_slots, int64_t min_valid) {
  if (min_valid >= t_slots) return t_slots;
  hw_rng rng;
  hw_rng_seed(&rng, hw_mix_seed(seed, 2));
  if (hw_rng_below(&rng, 2) == 0) return t_slots;
  return min_valid + (int64_t)hw_rng_below(&rng, (uint64_t)(t_slots - min_valid));
}

#endif
