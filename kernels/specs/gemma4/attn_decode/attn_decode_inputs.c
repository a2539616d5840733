/* The generator of attn_decode.toml and attn_decode_f8.toml (include/headway/headway_reference.h):
 * the number of valid slots, argument 1 of both, from the slots T and the fewest valid VMIN
 * (attn_decode.h, attn_decode_draw_valid). */
#include "attn_decode.h"

enum { VALID = 1 };
enum { T, N, G, D, VMIN };

void headway_generate(uint64_t seed, double* const* a, const int64_t* dims) {
  a[VALID][0] = (double)attn_decode_draw_valid(seed, dims[T], dims[VMIN]);
}
