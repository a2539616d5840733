#include "targets/floors.h"

#include <gtest/gtest.h>

#include <map>
#include <stdexcept>
#include <string>

#include "targets/fact_names.h"

namespace headway::targets {
namespace {

TEST(BelowFloor, FlagsOnlyRatiosUnderThreePercentBelowTheFloor) {
  EXPECT_TRUE(below_floor(0.90));
  EXPECT_TRUE(below_floor(0.969));
  EXPECT_FALSE(below_floor(0.97));
  EXPECT_FALSE(below_floor(0.99));  // within a floor's own noise: a result
  EXPECT_FALSE(below_floor(1.25));
  EXPECT_FALSE(below_floor(0.0));  // no floor
  EXPECT_FALSE(below_floor(-1.0));
}

TEST(BelowFloor, TheNoteSaysTheRatioAndThatTheFloorIsWhatIsWrong) {
  EXPECT_EQ(below_floor_note(1.02), "");
  EXPECT_EQ(below_floor_note(0.904),
            "0.90x: below its floor (at least 0.97x): a floor to fix, not a result");
}

// The memory floor moves the kernel's bytes at the read bandwidth; a quantized kernel's
// instruction floor decodes its weights at its format's rate, and is unknown where that is not
// given.
TEST(FloorsFromRates, TheDecodeRateIsOnlyNeededForTheInstructionFloor) {
  const KernelContract& ffn = *builtin_kernel("ffn");  // NVFP4 weights
  const std::map<std::string, double> all = {
      {kReadBandwidth, 50.0}, {kDecodeF8, 200.0}, {kDecodeNvfp4, 100.0}};
  const KernelFloors f = floors_from_rates(ffn, all);
  EXPECT_DOUBLE_EQ(f.memory_ms, static_cast<double>(ffn.bytes_to_move()) / 50e9 * 1e3);
  ASSERT_TRUE(f.instruction_ms);
  EXPECT_DOUBLE_EQ(*f.instruction_ms,
                   static_cast<double>(ffn.quantized_weight_bytes()) / 100e9 * 1e3);
  const KernelFloors memory_only = floors_from_rates(ffn, {{kReadBandwidth, 50.0}});
  EXPECT_DOUBLE_EQ(memory_only.memory_ms, f.memory_ms);
  EXPECT_FALSE(memory_only.instruction_ms);
  EXPECT_THROW(floors_from_rates(ffn, {{kDecodeNvfp4, 100.0}}), std::out_of_range);
}

}  // namespace
}  // namespace headway::targets
