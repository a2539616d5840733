// Chip facts in a real workspace database, measured through the Target interface.
#include "knowledge/facts.h"

#include <gtest/gtest.h>

#include "kernels/contract.h"
#include "store/test_temp_dir.h"
#include "targets/fact_names.h"
#include "targets/registry/test_targets.h"

namespace headway::knowledge {
namespace {

TEST(FactsStore, StoresReplacesAndListsPerToolchain) {
  store::TestTempDir dir;
  auto ws = store::Workspace::create(dir.path()).value();
  store_fact(ws, {"read_bandwidth", "tc-a", 10.0, "GB/s", 1.5, "m1", ""});
  store_fact(ws, {"timer_overhead", "tc-a", 20.0, "ns", std::nullopt, "m2", ""});
  store_fact(ws, {"read_bandwidth", "tc-b", 30.0, "GB/s", std::nullopt, "m3", ""});
  store_fact(ws, {"read_bandwidth", "tc-a", 11.0, "GB/s", 0.5, "m1 again", ""});

  const auto all = list_facts(ws);
  ASSERT_EQ(all.size(), 3u);
  EXPECT_EQ(all[0].toolchain, "tc-a");
  EXPECT_EQ(all[0].name, "read_bandwidth");
  EXPECT_DOUBLE_EQ(all[0].value, 11.0);
  EXPECT_EQ(all[0].method, "m1 again");
  ASSERT_TRUE(all[0].spread);
  EXPECT_DOUBLE_EQ(*all[0].spread, 0.5);
  EXPECT_FALSE(all[0].measured_at.empty());
  EXPECT_FALSE(all[1].spread);
  EXPECT_EQ(list_facts(ws, "tc-b").size(), 1u);
  EXPECT_TRUE(list_facts(ws, "tc-c").empty());
  ASSERT_TRUE(find_fact(ws, "read_bandwidth", "tc-b"));
  EXPECT_DOUBLE_EQ(find_fact(ws, "read_bandwidth", "tc-b")->value, 30.0);
  EXPECT_FALSE(find_fact(ws, "timer_overhead", "tc-b"));
  EXPECT_THROW(store_fact(ws, {"", "tc-a", 1.0, "", std::nullopt, "", ""}), std::invalid_argument);
}

TEST(FactsMeasure, ATargetsMeasuredFactsAreStoredUnderTheToolchain) {
  // Through the Target interface only: the loop tests' target reports one constant fact.
  store::TestTempDir dir;
  auto ws = store::Workspace::create(dir.path()).value();
  const auto target = targets::make_test_target();
  const auto facts = measure_and_store_facts(ws, *target, "tc", {1, 3, 2, {}});
  ASSERT_EQ(facts.size(), 1u);
  const auto stored = find_fact(ws, targets::kReadBandwidth, "tc");
  ASSERT_TRUE(stored);
  EXPECT_DOUBLE_EQ(stored->value, 50.0);
  EXPECT_EQ(stored->unit, "GB/s");
  EXPECT_EQ(stored->method, facts[0].method);
  EXPECT_FALSE(find_fact(ws, targets::kReadBandwidth, "another toolchain"));
}

}  // namespace
}  // namespace headway::knowledge
