#include "kernels/element_type.h"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <limits>

#include "kernels/numerics.h"

namespace headway {

namespace {

struct Named {
  ElementType type;
  std::string_view name;
};
constexpr Named kNames[] = {
    {ElementType::kF32, "f32"},       {ElementType::kF16, "f16"},
    {ElementType::kBf16, "bf16"},     {ElementType::kF8e4m3, "f8e4m3"},
    {ElementType::kF8e5m2, "f8e5m2"}, {ElementType::kNvfp4, "nvfp4"},
    {ElementType::kInt8, "int8"},     {ElementType::kInt32, "int32"},
};

// A small binary float format: `mantissa` stored bits, normals from 2^min_exponent, the largest
// finite magnitude `max_finite`; `infinities`: beyond it rounds to infinity, else saturates.
struct Format {
  int mantissa;
  int min_exponent;
  double max_finite;
  bool infinities;
};
constexpr Format kF16{10, -14, 65504.0, true};
constexpr Format kF8e5m2{2, -14, 57344.0, true};
constexpr Format kE2m1{1, 0, 6.0, false};

// The format's value nearest to v (ties to even), as its sign, exponent field and mantissa
// field; exponent_bias: the format's bias (the field of 2^min_exponent is 1).
uint32_t encode(const Format& f, int exponent_bias, double v) {
  const bool negative = std::signbit(v);
  double a = std::fabs(v);
  if (std::isnan(v)) return 0xffffffffu;  // the caller maps it to the format's NaN
  const double top_ulp = std::ldexp(1.0, std::ilogb(f.max_finite) - f.mantissa);
  if (a >= f.max_finite + top_ulp / 2) {
    if (f.infinities) return (negative ? 0x80000000u : 0u) | 0x7ffffffeu;  // infinity marker
    a = f.max_finite;
  }
  const int e = std::max(a == 0 ? f.min_exponent : std::ilogb(a), f.min_exponent);
  const double quantum = std::ldexp(1.0, e - f.mantissa);
  double r = std::nearbyint(a / quantum) * quantum;
  if (r > f.max_finite) r = f.max_finite;  // a tie at the top that saturates
  uint32_t exponent_field = 0, mantissa_field = 0;
  if (r >= std::ldexp(1.0, f.min_exponent)) {
    const int re = std::ilogb(r);
    exponent_field = static_cast<uint32_t>(re + exponent_bias);
    mantissa_field = static_cast<uint32_t>(std::ldexp(r, f.mantissa - re)) - (1u << f.mantissa);
  } else {
    mantissa_field = static_cast<uint32_t>(r / std::ldexp(1.0, f.min_exponent - f.mantissa));
  }
  return (negative ? 0x80000000u : 0u) | (exponent_field << f.mantissa) | mantissa_field;
}

// Bits of a format with `bits` in all (1 sign, then exponent, then mantissa).
uint32_t pack(const Format& f, int bits, int exponent_bias, double v) {
  const uint32_t sign = 1u << (bits - 1);
  const uint32_t exp_all_ones = ((1u << (bits - 1 - f.mantissa)) - 1) << f.mantissa;
  const uint32_t e = encode(f, exponent_bias, v);
  if (e == 0xffffffffu) return exp_all_ones | (1u << (f.mantissa - 1));  // quiet NaN
  const bool negative = (e & 0x80000000u) != 0;
  const uint32_t body = e & 0x7fffffffu;
  if (body == 0x7ffffffeu) return (negative ? sign : 0) | exp_all_ones;  // infinity
  return (negative ? sign : 0) | body;
}

double unpack(const Format& f, int bits, int exponent_bias, uint32_t code) {
  const bool negative = (code >> (bits - 1)) & 1u;
  const uint32_t exponent_field = (code >> f.mantissa) & ((1u << (bits - 1 - f.mantissa)) - 1);
  const uint32_t mantissa_field = code & ((1u << f.mantissa) - 1);
  const uint32_t exp_all_ones = (1u << (bits - 1 - f.mantissa)) - 1;
  double v;
  if (f.infinities && exponent_field == exp_all_ones) {
    v = mantissa_field ? std::numeric_limits<double>::quiet_NaN()
                       : std::numeric_limits<double>::infinity();
  } else if (exponent_field == 0) {
    v = std::ldexp(static_cast<double>(mantissa_field), f.min_exponent - f.mantissa);
  } else {
    v = std::ldexp(1.0 + std::ldexp(static_cast<double>(mantissa_field), -f.mantissa),
                   static_cast<int>(exponent_field) - exponent_bias);
  }
  return negative ? -v : v;
}

}  // namespace

std::string_view element_type_name(ElementType type) {
  for (const auto& n : kNames) {
    if (n.type == type) return n.name;
  }
  return "?";
}

std::optional<ElementType> parse_element_type(std::string_view name) {
  for (const auto& n : kNames) {
    if (n.name == name) return n.type;
  }
  return std::nullopt;
}

std::string_view element_type_names() {
  return "f32, f16, bf16, f8e4m3, f8e5m2, nvfp4, int8, int32";
}

int element_bits(ElementType type) {
  switch (type) {
    case ElementType::kF32:
    case ElementType::kInt32:
      return 32;
    case ElementType::kF16:
    case ElementType::kBf16:
      return 16;
    case ElementType::kF8e4m3:
    case ElementType::kF8e5m2:
    case ElementType::kInt8:
      return 8;
    case ElementType::kNvfp4:
      return 4;
  }
  return 8;
}

bool is_floating(ElementType type) {
  return type != ElementType::kInt8 && type != ElementType::kInt32;
}

ElementRange element_range(ElementType type) {
  switch (type) {
    case ElementType::kF32:
      return {-std::numeric_limits<float>::max(), std::numeric_limits<float>::max()};
    case ElementType::kF16:
      return {-kF16.max_finite, kF16.max_finite};
    case ElementType::kBf16: {
      const double max = std::ldexp(2.0 - std::ldexp(1.0, -7), 127);  // 0x7f7f
      return {-max, max};
    }
    case ElementType::kF8e4m3:
      return {-448.0, 448.0};
    case ElementType::kF8e5m2:
      return {-kF8e5m2.max_finite, kF8e5m2.max_finite};
    case ElementType::kNvfp4:
      return {-kE2m1.max_finite, kE2m1.max_finite};
    case ElementType::kInt8:
      return {-128.0, 127.0};
    case ElementType::kInt32:
      return {-2147483648.0, 2147483647.0};
  }
  return {0.0, 0.0};
}

size_t element_bytes(ElementType type, size_t count) {
  return count * static_cast<size_t>(element_bits(type)) / 8;
}

float f16_to_float(uint16_t bits) { return static_cast<float>(unpack(kF16, 16, 15, bits)); }
uint16_t float_to_f16(float f) { return static_cast<uint16_t>(pack(kF16, 16, 15, f)); }
float f8e5m2_to_float(uint8_t code) { return static_cast<float>(unpack(kF8e5m2, 8, 15, code)); }
uint8_t float_to_f8e5m2(float f) {
  // Saturating, as f8e4m3's conversion does: only NaN has no finite code.
  const double v = std::isinf(f) ? std::copysign(kF8e5m2.max_finite, f) : f;
  const double clamped = std::isnan(v) ? v : std::clamp(v, -kF8e5m2.max_finite, kF8e5m2.max_finite);
  return static_cast<uint8_t>(pack(kF8e5m2, 8, 15, clamped));
}
uint8_t float_to_e2m1(float f) {
  const double v = std::isnan(f) ? 0.0 : f;
  return static_cast<uint8_t>(pack(kE2m1, 4, 1, v));
}

double read_element(ElementType type, const std::byte* base, size_t i) {
  switch (type) {
    case ElementType::kF32: {
      float v;
      std::memcpy(&v, base + 4 * i, 4);
      return v;
    }
    case ElementType::kF16: {
      uint16_t v;
      std::memcpy(&v, base + 2 * i, 2);
      return f16_to_float(v);
    }
    case ElementType::kBf16: {
      bf16 v;
      std::memcpy(&v, base + 2 * i, 2);
      return bf16_to_float(v);
    }
    case ElementType::kF8e4m3:
      return f8e4m3_to_float(static_cast<uint8_t>(base[i]));
    case ElementType::kF8e5m2:
      return f8e5m2_to_float(static_cast<uint8_t>(base[i]));
    case ElementType::kNvfp4: {
      const auto byte = static_cast<uint8_t>(base[i / 2]);
      return e2m1_to_float(i % 2 ? byte >> 4 : byte & 0xf);
    }
    case ElementType::kInt8:
      return static_cast<int8_t>(base[i]);
    case ElementType::kInt32: {
      int32_t v;
      std::memcpy(&v, base + 4 * i, 4);
      return v;
    }
  }
  return 0.0;
}

void read_elements(ElementType type, const std::byte* base, std::span<double> out) {
  switch (type) {
    case ElementType::kBf16:
      for (size_t i = 0; i < out.size(); ++i) {
        bf16 v;
        std::memcpy(&v, base + 2 * i, 2);
        out[i] = bf16_to_float(v);
      }
      return;
    case ElementType::kF32:
      for (size_t i = 0; i < out.size(); ++i) {
        float v;
        std::memcpy(&v, base + 4 * i, 4);
        out[i] = v;
      }
      return;
    default:
      for (size_t i = 0; i < out.size(); ++i) out[i] = read_element(type, base, i);
  }
}

void write_element(ElementType type, std::byte* base, size_t i, double v) {
  auto saturate = [](double x, double lo, double hi) {
    return std::isnan(x) ? 0.0 : std::clamp(std::nearbyint(x), lo, hi);
  };
  switch (type) {
    case ElementType::kF32: {
      const float f = static_cast<float>(v);
      std::memcpy(base + 4 * i, &f, 4);
      return;
    }
    case ElementType::kF16: {
      const uint16_t h = float_to_f16(static_cast<float>(v));
      std::memcpy(base + 2 * i, &h, 2);
      return;
    }
    case ElementType::kBf16: {
      const bf16 b = double_to_bf16(v);
      std::memcpy(base + 2 * i, &b, 2);
      return;
    }
    case ElementType::kF8e4m3:
      base[i] = static_cast<std::byte>(float_to_f8e4m3(static_cast<float>(v)));
      return;
    case ElementType::kF8e5m2:
      base[i] = static_cast<std::byte>(float_to_f8e5m2(static_cast<float>(v)));
      return;
    case ElementType::kNvfp4: {
      const auto code = float_to_e2m1(static_cast<float>(v));
      auto byte = static_cast<uint8_t>(base[i / 2]);
      byte = i % 2 ? static_cast<uint8_t>((byte & 0x0f) | (code << 4))
                   : static_cast<uint8_t>((byte & 0xf0) | code);
      base[i / 2] = static_cast<std::byte>(byte);
      return;
    }
    case ElementType::kInt8:
      base[i] = static_cast<std::byte>(static_cast<int8_t>(saturate(v, -128, 127)));
      return;
    case ElementType::kInt32: {
      const auto n = static_cast<int32_t>(saturate(v, -2147483648.0, 2147483647.0));
      std::memcpy(base + 4 * i, &n, 4);
      return;
    }
  }
}

namespace {
// bf16 0x7fa5 and f16 0x7fa5 are NaNs, and so is f32 0x7fa57fa5; 0x7f is a NaN in both f8 formats.
constexpr uint8_t kPoisonBytes[4] = {0xa5, 0x7f, 0xa5, 0x7f};
size_t poison_unit(ElementType type) { return std::max(1, element_bits(type) / 8); }
uint8_t poison_byte(ElementType type, size_t k) {
  return poison_unit(type) == 1 ? 0x7f : kPoisonBytes[k % 4];
}
}  // namespace

void fill_poison(ElementType type, std::byte* base, size_t count) {
  const size_t bytes = std::max<size_t>(element_bytes(type, count), count ? 1 : 0);
  // The pattern repeats every 4 bytes: lay 4, then double what is laid.
  for (size_t k = 0; k < std::min<size_t>(bytes, 4); ++k)
    base[k] = static_cast<std::byte>(poison_byte(type, k));
  for (size_t laid = 4; laid < bytes; laid *= 2)
    std::memcpy(base + laid, base, std::min(laid, bytes - laid));
}

namespace {

// The first element whose bits under `exponent` are all set (not finite), of `count` from base.
template <typename Bits>
std::optional<size_t> first_all_ones(const std::byte* base, size_t count, Bits exponent) {
  for (size_t i = 0; i < count; ++i) {
    Bits v;
    std::memcpy(&v, base + sizeof(Bits) * i, sizeof(Bits));
    if ((v & exponent) == exponent) return i;
  }
  return std::nullopt;
}

}  // namespace

std::optional<size_t> first_non_finite(ElementType type, const std::byte* base, size_t count) {
  switch (type) {
    case ElementType::kBf16:
      return first_all_ones<uint16_t>(base, count, 0x7f80);
    case ElementType::kF16:
      return first_all_ones<uint16_t>(base, count, 0x7c00);
    case ElementType::kF32:
      return first_all_ones<uint32_t>(base, count, 0x7f800000u);
    default:
      for (size_t i = 0; i < count; ++i) {
        if (!std::isfinite(read_element(type, base, i))) return i;
      }
      return std::nullopt;
  }
}

bool is_poison(ElementType type, const std::byte* base, size_t i) {
  if (type == ElementType::kNvfp4) return false;  // every nibble is a value
  const size_t unit = poison_unit(type);
  for (size_t k = 0; k < unit; ++k) {
    if (static_cast<uint8_t>(base[i * unit + k]) != poison_byte(type, k)) return false;
  }
  return true;
}

}  // namespace headway
