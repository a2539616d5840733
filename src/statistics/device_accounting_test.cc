#include "statistics/device_accounting.h"

#include <gtest/gtest.h>

namespace headway::statistics {
namespace {

nlohmann::json shape_set(double timed, double readings, double inputs, double bytes,
                         double huge_bytes, double round_trip) {
  nlohmann::json j = {{"timed_seconds", timed},
                      {"reading_phase_seconds", readings},
                      {"inputs_seconds", inputs},
                      {"input_bytes", bytes},
                      {"input_huge_page_bytes", huge_bytes},
                      {"round_trip_seconds", round_trip},
                      {"guard_steps_seconds", {{"flush", timed / 2}, {"pause", 0.25}}},
                      {"flush_instruction", "clflushopt"}};
  derive_shares(j);
  return j;
}

TEST(DeviceAccounting, SharesComeFromTheirParts) {
  const nlohmann::json j = shape_set(1.0, 4.0, 1.0, 100.0, 25.0, 1e-5);
  EXPECT_DOUBLE_EQ(j["timed_share_of_readings"], 0.25);
  EXPECT_DOUBLE_EQ(j["timed_share"], 0.2);
  EXPECT_DOUBLE_EQ(j["input_huge_page_share"], 0.25);
}

TEST(DeviceAccounting, SummedShapeSetsKeepSharesBelowOneAndPerCallFiguresAsMeans) {
  // Three shape sets, each with every input on huge pages and a quarter of its readings timed:
  // summed, the shares stay what each is, where adding them gave 3.0 and 0.75.
  const nlohmann::json sum = sum_accountings({shape_set(1.0, 4.0, 0.0, 100.0, 100.0, 1e-5),
                                              shape_set(2.0, 8.0, 0.0, 300.0, 300.0, 3e-5), nullptr,
                                              shape_set(3.0, 12.0, 0.0, 600.0, 600.0, 2e-5)});
  EXPECT_DOUBLE_EQ(sum["timed_seconds"], 6.0);
  EXPECT_DOUBLE_EQ(sum["timed_share_of_readings"], 0.25);
  EXPECT_DOUBLE_EQ(sum["timed_share"], 0.25);
  EXPECT_DOUBLE_EQ(sum["input_huge_page_share"], 1.0);
  EXPECT_DOUBLE_EQ(sum["round_trip_seconds"], 2e-5);
  // Nested seconds are summed too, and a string every device agrees on is kept.
  EXPECT_DOUBLE_EQ(sum["guard_steps_seconds"]["flush"], 3.0);
  EXPECT_DOUBLE_EQ(sum["guard_steps_seconds"]["pause"], 0.75);
  EXPECT_EQ(sum["flush_instruction"], "clflushopt");
}

TEST(DeviceAccounting, TheHugePageShareIsWeightedByEachSetsBytes) {
  const nlohmann::json sum = sum_accountings(
      {shape_set(1.0, 2.0, 0.0, 300.0, 300.0, 0.0), shape_set(1.0, 2.0, 0.0, 100.0, 0.0, 0.0)});
  EXPECT_DOUBLE_EQ(sum["input_huge_page_share"], 0.75);
}

TEST(DeviceAccounting, AStringTheDevicesDisagreeOnIsDropped) {
  nlohmann::json a = shape_set(1.0, 2.0, 0.0, 1.0, 1.0, 0.0);
  nlohmann::json b = a;
  b["flush_instruction"] = "clflush";
  b["guard_steps_seconds"]["how"] = "one";
  a["guard_steps_seconds"]["how"] = "two";
  // A third device that agrees with the first does not bring a disputed string back.
  const nlohmann::json sum = sum_accountings({a, b, a});
  EXPECT_FALSE(sum.contains("flush_instruction"));
  EXPECT_FALSE(sum["guard_steps_seconds"].contains("how"));
  EXPECT_DOUBLE_EQ(sum["guard_steps_seconds"]["pause"], 0.75);
}

TEST(DeviceAccounting, NoObjectIsNoAccountingAndPartsMissingLeaveAShareAlone) {
  EXPECT_TRUE(sum_accountings({nullptr, nullptr}).is_null());
  EXPECT_TRUE(sum_accountings({}).is_null());
  nlohmann::json only_timed = {{"timed_seconds", 2.0}, {"timed_share", 0.4}};
  derive_shares(only_timed);
  EXPECT_DOUBLE_EQ(only_timed["timed_share"], 0.4);
  nlohmann::json nothing_read = {{"timed_seconds", 0.0}, {"reading_phase_seconds", 0.0}};
  derive_shares(nothing_read);
  EXPECT_DOUBLE_EQ(nothing_read["timed_share"], 0.0);
}

}  // namespace
}  // namespace headway::statistics
