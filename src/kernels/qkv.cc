#include "kernels/qkv.h"

#include <cmath>

#include "common/rng.h"
#include "headway/headway_kernel.h"
#include "kernels/generate.h"
#include "kernels/reference_math.h"

namespace headway {

namespace {
constexpr size_t kSlotBytes = size_t{HW_NS} * HW_DS * kBf16Bytes;
}  // namespace

std::vector<RegionSpec> QkvKernel::regions() const {
  using R = RegionRole;
  return {
      {"x", HW_H * kBf16Bytes, R::kInput},
      {"input_rms_weight", HW_H * kBf16Bytes, R::kInput},
      {"q_weight", size_t{HW_QS} * HW_H, R::kInput},
      {"k_weight", size_t{HW_PS} * HW_H, R::kInput},
      {"v_weight", size_t{HW_PS} * HW_H, R::kInput},
      {"q_scale", HW_QS * kBf16Bytes, R::kInput},
      {"k_scale", HW_PS * kBf16Bytes, R::kInput},
      {"v_scale", HW_PS * kBf16Bytes, R::kInput},
      {"q_rms_weight", HW_DS * kBf16Bytes, R::kInput},
      {"k_rms_weight", HW_DS * kBf16Bytes, R::kInput},
      {"cos", HW_DS * kBf16Bytes, R::kInput},
      {"sin", HW_DS * kBf16Bytes, R::kInput},
      {"q_out", HW_QS * kBf16Bytes, R::kOutput},
      {"k_cache", HW_TS * kSlotBytes, R::kCache, kSlotBytes},
      {"v_cache", HW_TS * kSlotBytes, R::kCache, kSlotBytes},
      {"kv_slot", sizeof(int32_t), R::kInput},
  };
}

Tolerance QkvKernel::tolerance() const { return {0.04, 1e-2}; }

void QkvKernel::generate(uint64_t seed, SharedBuffers& b) const {
  auto s = [seed](uint64_t stream) { return mix_seed(seed, stream); };
  fill_bf16_normal(s(1), 1.0, b.as<bf16>("x"));
  fill_bf16_uniform(s(2), 0.5, 1.5, b.as<bf16>("input_rms_weight"));
  const double w_rms = fill_f8_normal(s(3), b.as<uint8_t>("q_weight"));
  fill_f8_normal(s(4), b.as<uint8_t>("k_weight"));
  fill_f8_normal(s(5), b.as<uint8_t>("v_weight"));
  // Row scales bring each projection to O(1): xn has RMS ~1.04, a row of H codes RMS w_rms.
  const double norm = 1.0 / (w_rms * std::sqrt(double{HW_H}) * 1.04);
  fill_bf16_uniform(s(6), 0.5 * norm, 1.5 * norm, b.as<bf16>("q_scale"));
  fill_bf16_uniform(s(7), 0.5 * norm, 1.5 * norm, b.as<bf16>("k_scale"));
  fill_bf16_uniform(s(8), 0.5 * norm, 1.5 * norm, b.as<bf16>("v_scale"));
  fill_bf16_uniform(s(9), 0.5, 1.5, b.as<bf16>("q_rms_weight"));
  fill_bf16_uniform(s(10), 0.5, 1.5, b.as<bf16>("k_rms_weight"));
  Rng rng(s(11));
  const double position = static_cast<double>(rng.below(100000));
  auto cos = b.as<bf16>("cos");
  auto sin = b.as<bf16>("sin");
  for (int i = 0; i < HW_DS / 2; ++i) {
    const double angle = position * std::pow(10000.0, -2.0 * i / double{HW_DS});
    cos[i] = cos[i + HW_DS / 2] = double_to_bf16(std::cos(angle));
    sin[i] = sin[i + HW_DS / 2] = double_to_bf16(std::sin(angle));
  }
  fill_bf16_normal(s(12), 1.0, b.as<bf16>("k_cache"));
  fill_bf16_normal(s(13), 1.0, b.as<bf16>("v_cache"));
  b.as<int32_t>("kv_slot")[0] = static_cast<int32_t>(rng.below(HW_TS));
}

std::vector<ExpectedOutput> QkvKernel::reference(const SharedBuffers& b) const {
  const auto x = bf16_to_doubles(b.as<bf16>("x"));
  const auto w_in = bf16_to_doubles(b.as<bf16>("input_rms_weight"));
  std::vector<double> xn(HW_H);
  rms_norm(x, w_in, HW_EPS, xn);
  for (auto& v : xn) v = round_bf16(v);

  const auto cos = bf16_to_doubles(b.as<bf16>("cos"));
  const auto sin = bf16_to_doubles(b.as<bf16>("sin"));
  // Projects rows through one weight, then normalizes (and rotates) each head of Ds rows.
  auto project = [&](const char* weight, const char* scale, const char* head_weight, bool rotate) {
    const auto w = b.as<uint8_t>(weight);
    const auto sc = bf16_to_doubles(b.as<bf16>(scale));
    const size_t rows = sc.size();
    std::vector<double> pre(rows), out(rows);
    for (size_t r = 0; r < rows; ++r) {
      pre[r] = round_bf16(dot_f8_row(w.data() + r * HW_H, xn) * sc[r]);
    }
    std::vector<double> hw;
    if (head_weight) hw = bf16_to_doubles(b.as<bf16>(head_weight));
    std::vector<double> normed(HW_DS);
    for (size_t h = 0; h < rows / HW_DS; ++h) {
      std::span<const double> head(pre.data() + h * HW_DS, HW_DS);
      std::span<double> dst(out.data() + h * HW_DS, HW_DS);
      if (rotate) {
        rms_norm(head, hw, HW_EPS, normed);
        rope(normed, cos, sin, dst);
      } else {
        rms_norm(head, hw, HW_EPS, dst);
      }
    }
    return out;
  };
  const size_t slot = static_cast<size_t>(b.as<int32_t>("kv_slot")[0]);
  const size_t slot_elems = size_t{HW_NS} * HW_DS;
  return {
      {b.index_of("q_out"), 0, project("q_weight", "q_scale", "q_rms_weight", true)},
      {b.index_of("k_cache"), slot * slot_elems,
       project("k_weight", "k_scale", "k_rms_weight", true)},
      {b.index_of("v_cache"), slot * slot_elems, project("v_weight", "v_scale", nullptr, false)},
  };
}

uint64_t QkvKernel::quantized_weight_bytes() const { return uint64_t{HW_QS + 2 * HW_PS} * HW_H; }

}  // namespace headway
