/* The f64 reference of rmsnorm.toml (include/headway/headway_reference.h). */
#include <math.h>

#include "headway_reference.h"

void headway_reference(double* const* args, const int64_t* dims) {
  const double* x = args[0];
  const double* weight = args[1];
  double* out = args[2];
  const int64_t n = dims[0];
  double sum_sq = 0;
  for (int64_t i = 0; i < n; ++i) sum_sq += x[i] * x[i];
  const double inv = 1.0 / sqrt(sum_sq / (double)n + 1e-6);
  for (int64_t i = 0; i < n; ++i) out[i] = x[i] * inv * weight[i];
}
