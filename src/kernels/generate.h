#pragma once
// Seeded fillers for kernel inputs. Every filler draws from its own stream (seed mixed with a
// stream id), so regions are independent and reproducible.
#include <cstdint>
#include <span>

#include "kernels/numerics.h"

namespace headway {

// bf16 values drawn from N(0, sigma^2), rounded to nearest: 16 bits of the stream pick one of
// 65,536 equally likely bins of N(0,1); a central bin gives its midpoint quantile (the quantile of
// (i + 1/2) / 65,536), each of the two outer bins (|z| beyond 4.17) an exact draw of its tail.
// Every value that the central bins give has its exact probability to within 1/65,536.
void fill_bf16_normal(uint64_t seed, double sigma, std::span<bf16> out);
// bf16 values drawn uniformly from [lo, hi).
void fill_bf16_uniform(uint64_t seed, double lo, double hi, std::span<bf16> out);
// f8e4m3fn codes of N(0,1) draws (never NaN). Returns the root mean square of the decoded
// values of the code distribution (for choosing scales).
double fill_f8_normal(uint64_t seed, std::span<uint8_t> out);
// What fill_f8_normal returns: the RMS of its code distribution's values (HW_F8_NORMAL_RMS in
// include/headway/headway_reference.h, for spec generators).
double f8_normal_rms();
// f8e4m3fn codes of values uniform in [lo, hi) rounded to f8 (positive scales).
void fill_f8_uniform(uint64_t seed, double lo, double hi, std::span<uint8_t> out);
// Uniform random bytes, eight from each 64 bits of the stream (for nvfp4: two uniform e2m1
// codes per byte).
void fill_random_bytes(uint64_t seed, std::span<uint8_t> out);
// Root mean square of a uniformly drawn e2m1 value.
double e2m1_rms();

}  // namespace headway
