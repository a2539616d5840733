/* The generator of ffn.toml (include/headway/headway_reference.h): global scales that bring gate,
 * up and down to about unit size, and the layer scalar, from stream 10. Block scales and x have
 * an RMS of about 1.04, and gelu(g) * u with g, u ~ N(0, 1) about 0.65. */
#include <math.h>

#include "headway_reference.h"

enum { GATE_G = 9, UP_G = 10, DOWN_G = 11, LAYER = 12 };

void headway_generate(uint64_t seed, double* const* a, const int64_t* dims) {
  const int64_t h = dims[0], l = dims[1];
  double sum_sq = 0.0;
  for (int c = 0; c < 16; ++c) sum_sq += hw_e2m1_value((uint8_t)c) * hw_e2m1_value((uint8_t)c);
  const double row_rms = sqrt(sum_sq / 16.0) * 1.04;
  hw_rng rng;
  hw_rng_seed(&rng, hw_mix_seed(seed, 10));
  a[GATE_G][0] = hw_rng_uniform(&rng, 0.8, 1.2) / (row_rms * sqrt((double)h) * 1.04);
  a[UP_G][0] = hw_rng_uniform(&rng, 0.8, 1.2) / (row_rms * sqrt((double)h) * 1.04);
  a[DOWN_G][0] = hw_rng_uniform(&rng, 0.8, 1.2) / (row_rms * sqrt((double)l) * 0.65);
  a[LAYER][0] = hw_rng_uniform(&rng, 0.5, 1.5);
}
