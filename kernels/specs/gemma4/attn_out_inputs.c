/* The generator of attn_out.toml (include/headway/headway_reference.h): row scales uniform in
 * [0.5, 1.5) times the norm that brings each row to about unit size, on stream 3. */
#include <math.h>

#include "headway_reference.h"

enum { OSC = 2 };

void headway_generate(uint64_t seed, double* const* a, const int64_t* dims) {
  const int64_t h = dims[0], qs = dims[1];
  const double norm = 1.0 / (HW_F8_NORMAL_RMS * sqrt((double)qs));
  hw_rng rng;
  hw_rng_seed(&rng, hw_mix_seed(seed, 3));
  for (int64_t r = 0; r < h; ++r) a[OSC][r] = hw_rng_uniform(&rng, 0.5 * norm, 1.5 * norm);
}
