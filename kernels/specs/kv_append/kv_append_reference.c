/* The f64 reference of kv_append.toml (include/headway/headway_reference.h). */
#include "headway_reference.h"

void headway_reference(double* const* args, const int64_t* dims) {
  const double* k = args[0];
  const int64_t slot = (int64_t)args[1][0];
  double* cache = args[2];
  const int64_t d = dims[1];
  for (int64_t i = 0; i < d; ++i) cache[slot * d + i] = k[i];
}
