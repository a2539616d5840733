/* The f64 reference of attn_decode_f8.toml (include/headway/headway_reference.h): K and V as
 * their f8e4m3 codes, each decoded exactly and multiplied by its slot's and group's f32 scale. */
#include "attn_decode.h"

enum { Q, VALID, K_CACHE, V_CACHE, K_SCALE, V_SCALE, ATTN };
enum { T, N, G, D };

typedef struct caches {
  const uint8_t* kv[2];
  const double* scale[2];
  int64_t n_groups, d;
  double value[256]; /* hw_f8e4m3_value of every code, decoded once a call */
} caches;

static void f8_row(const void* ctx, int kv, int64_t t, int64_t n, double* row) {
  const caches* c = ctx;
  const uint8_t* codes = c->kv[kv] + (t * c->n_groups + n) * c->d;
  const double scale = c->scale[kv][t * c->n_groups + n];
  for (int64_t i = 0; i < c->d; ++i) row[i] = c->value[codes[i]] * scale;
}

void headway_reference(double* const* a, const int64_t* dims) {
  caches c = {{hw_bytes(a[K_CACHE]), hw_bytes(a[V_CACHE])}, {a[K_SCALE], a[V_SCALE]}, dims[N], dims[D]};
  for (int code = 0; code < 256; ++code) c.value[code] = hw_f8e4m3_value((uint8_t)code);
  attn_decode_f64(a[Q], (int64_t)a[VALID][0], dims[N], dims[G], dims[D], f8_row, &c, a[ATTN]);
}
