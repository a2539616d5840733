/* The generator of gemv_f8.toml (include/headway/headway_reference.h): each row's scale brings
 * its output to about unit size, whatever the drawn weights and activations: scale[n] = u /
 * (sqrt(K) * rms(w[n, :]) * rms(x)), u uniform in [0.5, 1.5). */
#include <math.h>

#include "headway_reference.h"

void headway_generate(uint64_t seed, double* const* args, const int64_t* dims) {
  const double* x = args[0];
  const double* w = args[1];
  double* scale = args[2];
  const int64_t n = dims[0], k = dims[1];
  uint64_t stream = seed;
  double x_sq = 0;
  for (int64_t c = 0; c < k; ++c) x_sq += x[c] * x[c];
  const double x_rms = sqrt(x_sq / (double)k);
  for (int64_t r = 0; r < n; ++r) {
    double w_sq = 0;
    for (int64_t c = 0; c < k; ++c) w_sq += w[r * k + c] * w[r * k + c];
    const double w_rms = sqrt(w_sq / (double)k);
    const double u = 0.5 + hw_random_uniform(&stream);
    scale[r] = w_rms > 0 && x_rms > 0 ? u / (sqrt((double)k) * w_rms * x_rms) : u;
  }
}
