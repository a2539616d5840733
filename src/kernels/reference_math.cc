#include "kernels/reference_math.h"

#include <array>

namespace headway {

std::vector<double> bf16_to_doubles(std::span<const bf16> v) {
  std::vector<double> out(v.size());
  for (size_t i = 0; i < v.size(); ++i) out[i] = bf16_to_float(v[i]);
  return out;
}

double dot_f8_row(const uint8_t* row, std::span<const double> x) {
  static const auto table = [] {
    std::array<double, 256> t{};
    for (int c = 0; c < 256; ++c) t[c] = f8e4m3_to_float(static_cast<uint8_t>(c));
    return t;
  }();
  double sum = 0.0;
  for (size_t j = 0; j < x.size(); ++j) sum += table[row[j]] * x[j];
  return sum;
}

double dot_e2m1_row(const uint8_t* codes, const uint8_t* block_scales, std::span<const double> x) {
  static const auto table = [] {
    std::array<double, 16> t{};
    for (int c = 0; c < 16; ++c) t[c] = e2m1_to_float(static_cast<uint8_t>(c));
    return t;
  }();
  double total = 0.0;
  for (size_t b = 0; b * 16 < x.size(); ++b) {
    double block = 0.0;
    for (size_t k = 0; k < 8; ++k) {
      const uint8_t byte = codes[b * 8 + k];
      block += table[byte & 0xf] * x[b * 16 + 2 * k] + table[byte >> 4] * x[b * 16 + 2 * k + 1];
    }
    total += block * static_cast<double>(f8e4m3_to_float(block_scales[b]));
  }
  return total;
}

}  // namespace headway
