/* The f64 reference of attn_decode.toml (include/headway/headway_reference.h): K and V as their
 * bf16 bytes, read a row at a time. */
#include "attn_decode.h"

enum { Q, VALID, K_CACHE, V_CACHE, ATTN };
enum { T, N, G, D };

typedef struct caches {
  const uint8_t* kv[2];
  int64_t n_groups, d;
} caches;

static void bf16_row(const void* ctx, int kv, int64_t t, int64_t n, double* row) {
  const caches* c = ctx;
  const uint8_t* bytes = c->kv[kv] + 2 * ((t * c->n_groups + n) * c->d);
  for (int64_t i = 0; i < c->d; ++i) {
    uint16_t bits; /* the cache's bf16 in the host's byte order, as the generator wrote it */
    memcpy(&bits, bytes + 2 * i, sizeof bits);
    row[i] = hw_bf16_value(bits);
  }
}

void headway_reference(double* const* a, const int64_t* dims) {
  const caches c = {{hw_bytes(a[K_CACHE]), hw_bytes(a[V_CACHE])}, dims[N], dims[D]};
  attn_decode_f64(a[Q], (int64_t)a[VALID][0], dims[N], dims[G], dims[D], bf16_row, &c, a[ATTN]);
}
