#pragma once
// A small seeded PRNG (xoshiro256** seeded through splitmix64) with its own uniform, normal and
// Student-t draws, so that a seed gives the same stream on every run and standard library.
#include <array>
#include <cstdint>

namespace headway {

// A 64-bit seed for stream `stream` derived from `seed`; distinct streams give unrelated seeds.
uint64_t mix_seed(uint64_t seed, uint64_t stream);

// The largest seed a JSON number holds exactly in every common tool (a double's 53-bit integer
// range: jq, JavaScript and Python's json round larger ones).
inline constexpr uint64_t kMaxPrintableSeed = (uint64_t{1} << 53) - 1;
// A fresh seed from the system's entropy, at most kMaxPrintableSeed, so that a seed printed in
// one run's JSON can be given back to draw the same inputs.
uint64_t fresh_seed();

class Rng {
 public:
  explicit Rng(uint64_t seed);

  uint64_t next_u64();
  // Uniform in [0, 1), 53 random bits.
  double uniform();
  // Uniform in [lo, hi).
  double uniform(double lo, double hi);
  // Standard normal (Marsaglia polar method).
  double normal();
  // Student t with `dof` > 0 integer degrees of freedom (normal over sqrt(chi-square/dof)).
  double student_t(int dof);
  // A fair coin.
  bool coin();
  // Uniform integer in [0, n); requires n > 0.
  uint64_t below(uint64_t n);

 private:
  std::array<uint64_t, 4> s_;
  bool has_spare_ = false;
  double spare_ = 0.0;
};

}  // namespace headway
