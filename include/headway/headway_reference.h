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
 * hw_random_u64 below, seeded with it, or from headway's own streams (hw_rng below).
 *
 * An argument with `pass = "bytes"` (an input or weight) reaches both functions as its encoded
 * bytes, not decoded: read them through hw_bytes(args[i]) and the decoders below, and never write
 * them. Weights of hundreds of megabytes are passed so, to spare a decode on every call.
 */
#ifndef HEADWAY_REFERENCE_H
#define HEADWAY_REFERENCE_H
#include <math.h>
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

/* headway's own draws: argument i is drawn from an hw_rng seeded with
 * hw_mix_seed(seed, stream), where stream is its `stream` (by default i + 1); a generator that
 * draws the same way gets the same values headway would (xoshiro256** seeded by splitmix64). */
typedef struct hw_rng {
  uint64_t s[4];
  int has_spare;
  double spare;
} hw_rng;

/* The seed of stream `stream` of `seed`. */
static inline uint64_t hw_mix_seed(uint64_t seed, uint64_t stream) {
  uint64_t x = seed ^ (stream * 0xd1b54a32d192ed03ull);
  hw_random_u64(&x);
  return hw_random_u64(&x);
}

static inline void hw_rng_seed(hw_rng* r, uint64_t seed) {
  uint64_t x = seed;
  for (int i = 0; i < 4; ++i) r->s[i] = hw_random_u64(&x);
  r->has_spare = 0;
  r->spare = 0.0;
}

static inline uint64_t hw_rng_u64(hw_rng* r) {
  uint64_t* s = r->s;
  const uint64_t m = s[1] * 5;
  const uint64_t result = ((m << 7) | (m >> 57)) * 9;
  const uint64_t t = s[1] << 17;
  s[2] ^= s[0];
  s[3] ^= s[1];
  s[1] ^= s[2];
  s[0] ^= s[3];
  s[2] ^= t;
  s[3] = (s[3] << 45) | (s[3] >> 19);
  return result;
}

/* Uniform in [lo, hi). */
static inline double hw_rng_uniform(hw_rng* r, double lo, double hi) {
  return lo + (hi - lo) * ((double)(hw_rng_u64(r) >> 11) * (1.0 / 9007199254740992.0));
}

/* Standard normal (Marsaglia's polar method, each second value kept for the next call). */
static inline double hw_rng_normal(hw_rng* r) {
  if (r->has_spare) {
    r->has_spare = 0;
    return r->spare;
  }
  double u, v, s;
  do {
    u = hw_rng_uniform(r, -1.0, 1.0);
    v = hw_rng_uniform(r, -1.0, 1.0);
    s = u * u + v * v;
  } while (s >= 1.0 || s == 0.0);
  const double factor = sqrt(-2.0 * log(s) / s);
  r->spare = v * factor;
  r->has_spare = 1;
  return u * factor;
}

/* Uniform integer in [0, n), n > 0. */
static inline uint64_t hw_rng_below(hw_rng* r, uint64_t n) {
  const uint64_t limit = UINT64_MAX - UINT64_MAX % n;
  uint64_t x = hw_rng_u64(r);
  while (x >= limit) x = hw_rng_u64(r);
  return x % n;
}

/* The RMS of headway's f8e4m3 normal draws (`draw = { normal = 1.0 }` of an f8e4m3 argument
 * takes codes from a fixed table of quantized N(0, 1) draws; this is its values' RMS). */
#define HW_F8_NORMAL_RMS 0x1.02083f80fa239p+0

/* An argument passed as bytes (`pass = "bytes"`). */
static inline const uint8_t* hw_bytes(const double* arg) {
  return (const uint8_t*)(const void*)arg;
}

/* Decoders of encoded elements. bf16: its 16 bits, the upper half of an f32. */
static inline double hw_bf16_value(uint16_t bits) {
  const uint32_t wide = (uint32_t)bits << 16;
  float f;
  memcpy(&f, &wide, sizeof f);
  return (double)f;
}

/* f8e4m3fn: sign, 4 exponent bits (bias 7), 3 mantissa bits; 0x7f and 0xff are NaN. */
static inline double hw_f8e4m3_value(uint8_t code) {
  const int exponent = (code >> 3) & 0xf, mantissa = code & 0x7;
  double magnitude;
  if (exponent == 0xf && mantissa == 0x7) return NAN;
  if (exponent == 0)
    magnitude = ldexp(mantissa / 8.0, -6);
  else
    magnitude = ldexp(1.0 + mantissa / 8.0, exponent - 7);
  return (code & 0x80) ? -magnitude : magnitude;
}

/* e2m1 (one nvfp4 code, the low 4 bits): sign, then 0, 0.5, 1, 1.5, 2, 3, 4, 6. */
static inline double hw_e2m1_value(uint8_t code) {
  static const double magnitudes[8] = {0.0, 0.5, 1.0, 1.5, 2.0, 3.0, 4.0, 6.0};
  const double m = magnitudes[code & 0x7];
  return (code & 0x8) ? -m : m;
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
