#pragma once
// The element types a kernel argument may hold (docs/KERNELS.md, "Kernel specs"), and the one
// place their bits become doubles and back. nvfp4 holds e2m1 codes two to a byte (element 2k in
// the low nibble); its block scales are an argument of their own (f8e4m3).
#include <cstddef>
#include <cstdint>
#include <optional>
#include <span>
#include <string_view>

namespace headway {

enum class ElementType { kF32, kF16, kBf16, kF8e4m3, kF8e5m2, kNvfp4, kInt8, kInt32 };

// "f32", "f16", "bf16", "f8e4m3", "f8e5m2", "nvfp4", "int8", "int32".
std::string_view element_type_name(ElementType type);
std::optional<ElementType> parse_element_type(std::string_view name);
// Every name parse_element_type accepts, comma-separated (for error messages).
std::string_view element_type_names();

int element_bits(ElementType type);  // 4 for nvfp4, else a whole number of bytes
bool is_floating(ElementType type);
// The values `type` holds without saturating: for an integer type every integer from `lowest` to
// `highest`; for a floating type the finite values between its largest magnitudes (-448 to 448
// for f8e4m3), which a value rounds to the nearest of.
struct ElementRange {
  double lowest;
  double highest;
};
ElementRange element_range(ElementType type);
// Bytes that `count` elements take (count must be even for nvfp4).
size_t element_bytes(ElementType type, size_t count);

// Element i of an array of `type` starting at base, as a double (exact for every type).
double read_element(ElementType type, const std::byte* base, size_t i);
// Elements 0 .. out.size() - 1, as read_element reads each (in one pass).
void read_elements(ElementType type, const std::byte* base, std::span<double> out);
// Stores the nearest value of `type` to v (round to nearest even; integers round and saturate,
// f8 and e2m1 saturate to their largest finite magnitude, NaN stays NaN where the type has one).
void write_element(ElementType type, std::byte* base, size_t i, double v);

// The pattern headway writes into an output before a call: for the floating types a NaN, so it
// never passes a tolerance check. Fills `count` elements from base.
void fill_poison(ElementType type, std::byte* base, size_t count);
bool is_poison(ElementType type, const std::byte* base, size_t i);
// The index of the first of `count` elements from base that is not finite (a NaN, a poison
// included, or an infinity), or nullopt. For the 16- and 32-bit floating types a test of the
// exponent bits, element by element; for the others read_element's value.
std::optional<size_t> first_non_finite(ElementType type, const std::byte* base, size_t count);

// f16 (IEEE binary16) conversions, round to nearest even.
float f16_to_float(uint16_t bits);
uint16_t float_to_f16(float f);
// f8e5m2: sign, 5 exponent bits (bias 15), 2 mantissa bits, with infinities; saturates to 57344.
float f8e5m2_to_float(uint8_t code);
uint8_t float_to_f8e5m2(float f);
// The nearest e2m1 code (low 3 bits magnitude index, bit 3 sign), saturating at 6.
uint8_t float_to_e2m1(float f);

}  // namespace headway
