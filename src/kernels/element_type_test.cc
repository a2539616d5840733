#include "kernels/element_type.h"

#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <limits>
#include <vector>

#include "kernels/numerics.h"

namespace headway {
namespace {

double round_trip(ElementType type, double v) {
  std::byte bytes[8] = {};
  write_element(type, bytes, 1, v);
  return read_element(type, bytes, 1);
}

TEST(ElementType, NamesParseBackAndUnknownOnesDoNot) {
  for (const auto type :
       {ElementType::kF32, ElementType::kF16, ElementType::kBf16, ElementType::kF8e4m3,
        ElementType::kF8e5m2, ElementType::kNvfp4, ElementType::kInt8, ElementType::kInt32}) {
    EXPECT_EQ(parse_element_type(element_type_name(type)), type);
  }
  EXPECT_FALSE(parse_element_type("fp16"));
  EXPECT_FALSE(parse_element_type(""));
  EXPECT_EQ(element_bytes(ElementType::kNvfp4, 6), 3u);
  EXPECT_EQ(element_bytes(ElementType::kInt32, 6), 24u);
}

TEST(ElementType, F16RoundsToNearestEvenWithSubnormalsAndInfinity) {
  EXPECT_EQ(float_to_f16(1.0f), 0x3c00);
  EXPECT_EQ(float_to_f16(-2.0f), 0xc000);
  EXPECT_EQ(float_to_f16(65504.0f), 0x7bff);
  EXPECT_EQ(float_to_f16(65520.0f), 0x7c00);  // the tie above the largest finite value: infinity
  EXPECT_EQ(float_to_f16(std::ldexp(1.0f, -24)), 0x0001);         // the smallest subnormal
  EXPECT_EQ(float_to_f16(1.0f + std::ldexp(1.0f, -11)), 0x3c00);  // a tie goes to the even 1.0
  EXPECT_EQ(float_to_f16(1.0f + 3 * std::ldexp(1.0f, -11)), 0x3c02);
  EXPECT_TRUE(std::isnan(f16_to_float(float_to_f16(std::nanf("")))));
  for (uint32_t bits = 0; bits < 0x7c00; bits += 7) {  // every 7th finite positive code
    EXPECT_EQ(float_to_f16(f16_to_float(static_cast<uint16_t>(bits))), bits);
  }
}

TEST(ElementType, F8e5m2AndE2m1SaturateAndRoundTrip) {
  EXPECT_EQ(float_to_f8e5m2(1.0f), 0x3c);
  EXPECT_EQ(f8e5m2_to_float(0x7b), 57344.0f);
  EXPECT_EQ(float_to_f8e5m2(1e9f), 0x7b);  // saturates, like f8e4m3
  EXPECT_EQ(float_to_f8e5m2(-1e9f), 0xfb);
  for (uint32_t c = 0; c < 0x7c; ++c)
    EXPECT_EQ(float_to_f8e5m2(f8e5m2_to_float(static_cast<uint8_t>(c))), c) << c;
  for (uint8_t c = 0; c < 16; ++c) {
    if (c == 8) continue;  // -0 is written as +0's sign bit set: same value
    EXPECT_EQ(float_to_e2m1(e2m1_to_float(c)), c) << int(c);
  }
  EXPECT_EQ(float_to_e2m1(100.0f), 0x7);  // 6, the largest
  EXPECT_EQ(float_to_e2m1(2.4f), 0x4);    // 2
}

TEST(ElementType, ElementsReadBackAsTheNearestValueOfTheirType) {
  EXPECT_EQ(round_trip(ElementType::kF32, 0.1), static_cast<double>(0.1f));
  EXPECT_EQ(round_trip(ElementType::kBf16, 1.00390625), bf16_to_float(double_to_bf16(1.00390625)));
  EXPECT_EQ(round_trip(ElementType::kF8e4m3, 1000.0), 448.0);
  EXPECT_EQ(round_trip(ElementType::kInt8, 200.0), 127.0);
  EXPECT_EQ(round_trip(ElementType::kInt8, -2.6), -3.0);
  EXPECT_EQ(round_trip(ElementType::kInt32, 1e12), 2147483647.0);
  // nvfp4 packs element 2k in the low nibble, 2k+1 in the high one, and leaves its neighbour.
  std::byte packed[1] = {};
  write_element(ElementType::kNvfp4, packed, 0, 1.5);
  write_element(ElementType::kNvfp4, packed, 1, -6.0);
  EXPECT_EQ(static_cast<uint8_t>(packed[0]), 0xf3);
  EXPECT_EQ(read_element(ElementType::kNvfp4, packed, 0), 1.5);
  EXPECT_EQ(read_element(ElementType::kNvfp4, packed, 1), -6.0);
}

TEST(ElementType, PoisonIsANanOfEveryFloatTypeAndFoundWhereWritten) {
  for (const auto type : {ElementType::kF32, ElementType::kF16, ElementType::kBf16,
                          ElementType::kF8e4m3, ElementType::kF8e5m2}) {
    std::vector<std::byte> bytes(element_bytes(type, 4));
    fill_poison(type, bytes.data(), 4);
    for (size_t i = 0; i < 4; ++i) {
      EXPECT_TRUE(is_poison(type, bytes.data(), i)) << element_type_name(type);
      EXPECT_TRUE(std::isnan(read_element(type, bytes.data(), i))) << element_type_name(type);
    }
    write_element(type, bytes.data(), 2, 0.5);
    EXPECT_FALSE(is_poison(type, bytes.data(), 2)) << element_type_name(type);
    EXPECT_TRUE(is_poison(type, bytes.data(), 3)) << element_type_name(type);
  }
  std::vector<std::byte> ints(16);
  fill_poison(ElementType::kInt32, ints.data(), 4);
  EXPECT_TRUE(is_poison(ElementType::kInt32, ints.data(), 3));
  write_element(ElementType::kInt32, ints.data(), 3, 7);
  EXPECT_FALSE(is_poison(ElementType::kInt32, ints.data(), 3));
}

TEST(ElementType, TheFirstNonFiniteElementIsFoundInEveryFloatType) {
  for (const auto type : {ElementType::kF32, ElementType::kF16, ElementType::kBf16,
                          ElementType::kF8e4m3, ElementType::kF8e5m2}) {
    const auto name = element_type_name(type);
    std::vector<std::byte> bytes(element_bytes(type, 6));
    for (size_t i = 0; i < 6; ++i) write_element(type, bytes.data(), i, -1.5 * double(i));
    EXPECT_EQ(first_non_finite(type, bytes.data(), 6), std::nullopt) << name;
    // The largest finite value is finite; a NaN (a poison) and an infinity are not.
    write_element(type, bytes.data(), 1, 6e4);
    EXPECT_EQ(first_non_finite(type, bytes.data(), 6), std::nullopt) << name;
    fill_poison(type, bytes.data() + element_bytes(type, 4), 1);
    EXPECT_EQ(first_non_finite(type, bytes.data(), 6), 4u) << name;
    EXPECT_EQ(first_non_finite(type, bytes.data(), 4), std::nullopt) << name;
    if (type == ElementType::kF32 || type == ElementType::kF16 || type == ElementType::kBf16) {
      write_element(type, bytes.data(), 2, -std::numeric_limits<double>::infinity());
      EXPECT_EQ(first_non_finite(type, bytes.data(), 6), 2u) << name;
    }
  }
}

}  // namespace
}  // namespace headway
