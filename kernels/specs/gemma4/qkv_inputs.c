/* The generator of qkv.toml (include/headway/headway_reference.h), on headway's own streams:
 * row scales uniform in [0.5, 1.5) times the norm that brings each projection to about unit
 * size; the RoPE table of a position below 100000 and then the cache slot, from stream 11. */
#include <math.h>

#include "headway_reference.h"

enum { QSC = 5, KSC = 6, VSC = 7, COS = 10, SIN = 11, SLOT = 15 };

void headway_generate(uint64_t seed, double* const* a, const int64_t* dims) {
  const int64_t h = dims[0], qs = dims[1], ps = dims[2], ds = dims[3], ts = dims[4];
  /* xn has an RMS of about 1.04; a row of h codes has w_rms. */
  const double norm = 1.0 / (HW_F8_NORMAL_RMS * sqrt((double)h) * 1.04);
  const int64_t rows[3] = {qs, ps, ps};
  for (int s = 0; s < 3; ++s) {
    hw_rng rng;
    hw_rng_seed(&rng, hw_mix_seed(seed, (uint64_t)(6 + s)));
    for (int64_t r = 0; r < rows[s]; ++r) a[QSC + s][r] = hw_rng_uniform(&rng, 0.5 * norm, 1.5 * norm);
  }
  hw_rng rng;
  hw_rng_seed(&rng, hw_mix_seed(seed, 11));
  const double position = (double)hw_rng_below(&rng, 100000);
  for (int64_t i = 0; i < ds / 2; ++i) {
    const double angle = position * pow(10000.0, -2.0 * (double)i / (double)ds);
    a[COS][i] = a[COS][i + ds / 2] = cos(angle);
    a[SIN][i] = a[SIN][i + ds / 2] = sin(angle);
  }
  a[SLOT][0] = (double)hw_rng_below(&rng, (uint64_t)ts);
}
