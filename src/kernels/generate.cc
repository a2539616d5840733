#include "kernels/generate.h"

#include <algorithm>
#include <array>
#include <cmath>
#include <numbers>
#include <vector>

#include "common/rng.h"

namespace headway {

namespace {

constexpr int kQuantileBits = 16;
constexpr size_t kQuantiles = size_t{1} << kQuantileBits;

// Upper-tail probability of N(0,1) beyond x.
double upper_tail(double x) { return 0.5 * std::erfc(x / std::sqrt(2.0)); }

// The x > 0 with upper_tail(x) == q (0 < q < 1/2), by Newton from below (`from` <= the root):
// upper_tail is convex there, so every step stays below the root and approaches it.
double upper_quantile(double q, double from) {
  double x = from;
  for (int i = 0; i < 100; ++i) {
    const double density = std::exp(-0.5 * x * x) / std::sqrt(2.0 * std::numbers::pi);
    const double step = (upper_tail(x) - q) / density;
    x += step;
    if (std::abs(step) <= 1e-15 * std::max(1.0, x)) break;
  }
  return x;
}

struct NormalQuantiles {
  // midpoint[i]: the quantile of (i + 1/2) / kQuantiles, for the central bins 1 .. kQuantiles-2.
  std::vector<double> midpoint = std::vector<double>(kQuantiles);
  double tail_edge = 0.0;  // bins 0 and kQuantiles-1 are |z| beyond this
};

const NormalQuantiles& normal_quantiles() {
  static const NormalQuantiles table = [] {
    NormalQuantiles t;
    const double n = static_cast<double>(kQuantiles);
    double x = 0.0;
    for (size_t i = kQuantiles / 2; i < kQuantiles; ++i) {
      x = upper_quantile((n - static_cast<double>(i) - 0.5) / n, x);
      t.midpoint[i] = x;
      t.midpoint[kQuantiles - 1 - i] = -x;
    }
    t.tail_edge = upper_quantile(1.0 / n, x / 2);
    return t;
  }();
  return table;
}

// |z| of N(0,1) conditioned on |z| > edge (Marsaglia's tail method: exact).
double tail_draw(Rng& rng, double edge) {
  for (;;) {
    const double x = std::sqrt(edge * edge - 2.0 * std::log1p(-rng.uniform()));
    if (rng.uniform() * x < edge) return x;
  }
}

}  // namespace

void fill_bf16_normal(uint64_t seed, double sigma, std::span<bf16> out) {
  const NormalQuantiles& q = normal_quantiles();
  // A fill longer than the table rounds each bin's value once.
  std::vector<bf16> rounded;
  if (out.size() >= kQuantiles) {
    rounded.resize(kQuantiles);
    for (size_t i = 0; i < kQuantiles; ++i) rounded[i] = double_to_bf16(sigma * q.midpoint[i]);
  }
  Rng rng(seed);
  uint64_t bits = 0;
  for (size_t i = 0; i < out.size(); ++i) {
    if (i % 4 == 0) bits = rng.next_u64();
    const size_t bin = bits & (kQuantiles - 1);
    bits >>= kQuantileBits;
    if (bin == 0 || bin == kQuantiles - 1) {
      const double z = tail_draw(rng, q.tail_edge);
      out[i] = double_to_bf16(sigma * (bin == 0 ? -z : z));
    } else {
      out[i] = rounded.empty() ? double_to_bf16(sigma * q.midpoint[bin]) : rounded[bin];
    }
  }
}

void fill_bf16_uniform(uint64_t seed, double lo, double hi, std::span<bf16> out) {
  Rng rng(seed);
  for (auto& v : out) v = double_to_bf16(rng.uniform(lo, hi));
}

namespace {
constexpr int kTableBits = 12;
// 4096 f8 codes quantized from N(0,1) draws with a fixed seed: sampling weights from this
// table is as good as quantizing fresh draws and ~50x faster for 100 MB of weights.
const std::array<uint8_t, 1 << kTableBits>& f8_normal_table() {
  static const auto table = [] {
    std::array<uint8_t, 1 << kTableBits> t{};
    Rng rng(0x5eed'f8ull);
    for (auto& c : t) c = float_to_f8e4m3(static_cast<float>(rng.normal()));
    return t;
  }();
  return table;
}
}  // namespace

double fill_f8_normal(uint64_t seed, std::span<uint8_t> out) {
  const auto& table = f8_normal_table();
  Rng rng(seed);
  size_t i = 0;
  while (i < out.size()) {
    uint64_t bits = rng.next_u64();
    for (int k = 0; k < 5 && i < out.size(); ++k, ++i) {
      out[i] = table[bits & ((1u << kTableBits) - 1)];
      bits >>= kTableBits;
    }
  }
  return f8_normal_rms();
}

double f8_normal_rms() {
  static const double rms = [] {
    double sum_sq = 0;
    for (uint8_t c : f8_normal_table()) {
      const double v = f8e4m3_to_float(c);
      sum_sq += v * v;
    }
    return std::sqrt(sum_sq / static_cast<double>(f8_normal_table().size()));
  }();
  return rms;
}

void fill_f8_uniform(uint64_t seed, double lo, double hi, std::span<uint8_t> out) {
  Rng rng(seed);
  for (auto& c : out) c = float_to_f8e4m3(static_cast<float>(rng.uniform(lo, hi)));
}

void fill_random_bytes(uint64_t seed, std::span<uint8_t> out) {
  Rng rng(seed);
  size_t i = 0;
  while (i < out.size()) {
    uint64_t bits = rng.next_u64();
    for (int k = 0; k < 8 && i < out.size(); ++k, ++i) {
      out[i] = static_cast<uint8_t>(bits & 0xff);
      bits >>= 8;
    }
  }
}

double e2m1_rms() {
  double sum_sq = 0;
  for (int n = 0; n < 16; ++n) {
    const double v = e2m1_to_float(static_cast<uint8_t>(n));
    sum_sq += v * v;
  }
  return std::sqrt(sum_sq / 16.0);
}

}  // namespace headway
