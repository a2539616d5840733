/* The f64 reference of gemv_f8.toml (include/headway/headway_reference.h). */
#include "headway_reference.h"

void headway_reference(double* const* args, const int64_t* dims) {
  const double* x = args[0];
  const double* w = args[1];
  const double* scale = args[2];
  double* y = args[3];
  const int64_t n = dims[0], k = dims[1];
  for (int64_t r = 0; r < n; ++r) {
    double acc = 0;
    for (int64_t c = 0; c < k; ++c) acc += w[r * k + c] * x[c];
    y[r] = acc * scale[r];
  }
}
