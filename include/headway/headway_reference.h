/* headway kernel-spec reference: what a spec's `reference` source implements (docs/KERNELS.md,
 * "Kernel specs"). The reference is trusted code of the spec's author; headway builds it on the
 * host and runs it to judge candidates, which never see it.
 *
 * A reference is one C or C++ source file that defines, with C linkage:
 *
 *   void headway_reference(double* const* args, const int64_t* dims);
 *
 *   args[i]  argument i of the spec's [[arguments]], in their order, one double per element,
 *            row-major, decoded exactly from its element type (nvfp4: the e2m1 value of each
 *            code, without its block scale). Inputs, weights, in/outs and caches hold the drawn
 *            values; outputs hold zeros. The reference writes every output and in/out element,
 *            and the cache rows the kernel must write (the rows it changes are the rows checked;
 *            every other row must stay as it was).
 *   dims[d]  the value of dimension d of the spec's `dims` at the shape set being checked.
 *
 * Compute in double; call the rounding helpers below where the kernel's contract rounds.
 *
 * A spec may also name a `generator`: a source defining, with C linkage,
 *
 *   void headway_generate(uint64_t seed, double* const* args, const int64_t* dims);
 *
 * called after the arguments' draws with every input, weight, in/out and cache decoded (outputs
 * zeroed, and ignored after the call). It may rewrite any of them, for inputs that depend on each
 * other (scales from the weights' magnitude, a table from one drawn position); headway stores
 * each value rounded to its argument's type. It must be deterministic in `seed`: draw from
 * hw_random_u64 below, seeded with it.
 */
#ifndef HEADWAY_REFERENCE_H
#define HEADWAY_REFERENCE_H
#include <stdint.h>
#include <string.h>

#ifdef __cplusplus
extern "C" {
#endif

void headway_reference(double* const* args, const int64_t* dims);
void headway_generate(uint64_t seed, double* const* args, const int64_t* dims);

/* splitmix64: the next 64 random bits of the stream *state (seed it with the generator's seed). */
static inline uint64_t hw_random_u64(uint64_t* state) {
  uint64_t z = (*state += 0x9e3779b97f4a7c15ull);
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
  return z ^ (z >> 31);
}

/* A double uniform in [0, 1) from the stream *state. */
static inline double hw_random_uniform(uint64_t* state) {
  return (double)(hw_random_u64(state) >> 11) * (1.0 / 9007199254740992.0);
}

/* Rounds to the nearest f32. */
static inline double hw_round_f32(double v) { return (double)(float)v; }

/* Rounds to the nearest f32 and then to the nearest bf16 (ties to even), as headway does. */
static inline double hw_round_bf16(double v) {
  float f = (float)v;
  uint32_t bits;
  memcpy(&bits, &f, sizeof bits);
  if ((bits & 0x7f800000u) != 0x7f800000u) bits += 0x7fffu + ((bits >> 16) & 1u);
  bits &= 0xffff0000u;
  memcpy(&f, &bits, sizeof f);
  return (double)f;
}

#ifdef __cplusplus
}
#endif
#endif /* HEADWAY_REFERENCE_H */
