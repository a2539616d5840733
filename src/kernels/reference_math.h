#pragma once
// Building blocks of the f64 references: decoding rows of quantized weights and dot products.
#include <cstdint>
#include <span>
#include <vector>

#include "kernels/numerics.h"

namespace headway {

std::vector<double> bf16_to_doubles(std::span<const bf16> v);
// Rounds through f32 to bf16 and back: the contract's "round to bf16" on a double value.
inline double round_bf16(double v) { return bf16_to_float(double_to_bf16(v)); }

// sum_j f8(row[j]) * x[j], in f64.
double dot_f8_row(const uint8_t* row, std::span<const double> x);
// sum_j e2m1(code j) * f8(block_scale[j/16]) * x[j], in f64 (no global scale). codes hold
// x.size()/2 bytes, the even element in the low nibble.
double dot_e2m1_row(const uint8_t* codes, const uint8_t* block_scales, std::span<const double> x);

}  // namespace headway
