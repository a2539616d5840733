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

/* Slots whose scores are summed side by side: each score is still one sum in element order, but
 * the block's sums are independent, so they overlap instead of waiting on one another. */
enum { ATTN_DECODE_SLOTS = 8 };

/* attn (n_groups * g_heads * d values, head n*G+g at row n*G+g) from q (the same layout) over
 * the slots 0 .. valid-1 (1 <= valid), each output rounded once to bf16. Every head takes the
 * slots in order; the groups of a slot are read one after the other, as the cache lays them. */
static void attn_decode_f64(const double* q, int64_t valid, int64_t n_groups, int64_t g_heads,
                            int64_t d, attn_decode_row load, const void* ctx, double* attn) {
  const double scale = 1.0 / sqrt((double)d);
  const int64_t heads = n_groups * g_heads;
  double* k = malloc(sizeof(double) * (size_t)(ATTN_DECODE_SLOTS * n_groups * d));
  double* v = malloc(sizeof(double) * (size_t)d);
  double* scores = malloc(sizeof(double) * (size_t)(ATTN_DECODE_SLOTS * heads));
  double* acc = calloc((size_t)(heads * d), sizeof(double));
  double* maximum = malloc(sizeof(double) * (size_t)heads);
  double* sum = calloc((size_t)heads, sizeof(double));
  for (int64_t h = 0; h < heads; ++h) maximum[h] = -INFINITY;
  for (int64_t t0 = 0; t0 < valid; t0 += ATTN_DECODE_SLOTS) {
    const int64_t slots = valid - t0 < ATTN_DECODE_SLOTS ? valid - t0 : ATTN_DECODE_SLOTS;
    for (int64_t b = 0; b < slots; ++b)
      for (int64_t n = 0; n < n_groups; ++n) load(ctx, 0, t0 + b, n, k + (b * n_groups + n) * d);
    for (int64_t s = 0; s < slots * heads; ++s) scores[s] = 0.0;
    for (int64_t n = 0; n < n_groups; ++n)
      for (int64_t i = 0; i < d; ++i)
        for (int64_t b = 0; b < slots; ++b)
          for (int64_t g = 0; g < g_heads; ++g)
            scores[b * heads + n * g_heads + g] +=
                q[(n * g_heads + g) * d + i] * k[(b * n_groups + n) * d + i];
    for (int64_t b = 0; b < slots; ++b) {
      for (int64_t n = 0; n < n_groups; ++n) {
        load(ctx, 1, t0 + b, n, v);
        for (int64_t h = n * g_heads; h < (n + 1) * g_heads; ++h) {
          const double score = scores[b * heads + h] * scale;
          if (score > maximum[h]) {
            const double shrink = exp(maximum[h] - score); /* 0 at the first slot */
            sum[h] *= shrink;
            for (int64_t i = 0; i < d; ++i) acc[h * d + i] *= shrink;
            maximum[h] = score;
          }
          const double p = exp(score - maximum[h]);
          sum[h] += p;
          for (int64_t i = 0; i < d; ++i) acc[h * d + i] += p * v[i];
        }
      }
    }
  }
  for (int64_t h = 0; h < heads; ++h)
    for (int64_t i = 0; i < d; ++i) attn[h * d + i] = hw_round_bf16(acc[h * d + i] / sum[h]);
  free(sum);
  free(maximum);
  free(acc);
  free(scores);
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
