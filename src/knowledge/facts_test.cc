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

TEST(FactsStore, KeepsASetPerDeviceModelAndFallsBackToTheUnknownModel) {
  store::TestTempDir dir;
  auto ws = store::Workspace::create(dir.path()).value();
  store_fact(ws, {"read_bandwidth", "tc", 10.0, "GB/s", std::nullopt, "", "", "model-a"});
  store_fact(ws, {"read_bandwidth", "tc", 20.0, "GB/s", std::nullopt, "", "", "model-b"});
  store_fact(ws, {"timer_overhead", "tc", 30.0, "ns", std::nullopt, "", ""});
  EXPECT_EQ(list_facts(ws, "tc").size(), 3u) << "one row per (name, toolchain, model)";
  EXPECT_EQ(fact_models(ws, "tc"), (std::vector<std::string>{"", "model-a", "model-b"}));
  EXPECT_DOUBLE_EQ(find_fact(ws, "read_bandwidth", "tc", "model-a")->value, 10.0);
  EXPECT_DOUBLE_EQ(find_fact(ws, "read_bandwidth", "tc", "model-b")->value, 20.0);
  EXPECT_EQ(find_fact(ws, "read_bandwidth", "tc", "model-b")->device_model, "model-b");
  EXPECT_FALSE(find_fact(ws, "read_bandwidth", "tc", "model-c")) << "no other model's";
  EXPECT_DOUBLE_EQ(find_fact(ws, "timer_overhead", "tc", "model-c")->value, 30.0)
      << "the unknown model's fact stands for any";
  EXPECT_TRUE(find_fact(ws, "read_bandwidth", "tc")) << "without a model: any model's";
}

TEST(FactsMeasure, APoolOfTwoModelsIsMeasuredOncePerModel) {
  store::TestTempDir dir;
  auto ws = store::Workspace::create(dir.path()).value();
  // Facts from before models were kept: the workspace's one device, replaced by the models'.
  store_fact(ws, {targets::kReadBandwidth, "tc", 5.0, "GB/s", std::nullopt, "", ""});
  const auto target = targets::make_test_target("test-1:bandwidths=10,20:models=model-a,model-b");
  const auto facts = measure_and_store_facts(ws, *target, "tc");
  ASSERT_EQ(facts.size(), 2u);
  EXPECT_EQ(fact_models(ws, "tc"), (std::vector<std::string>{"model-a", "model-b"}));
  EXPECT_DOUBLE_EQ(find_fact(ws, targets::kReadBandwidth, "tc", "model-a")->value, 10.0);
  EXPECT_DOUBLE_EQ(find_fact(ws, targets::kReadBandwidth, "tc", "model-b")->value, 20.0);

  targets::FactOptions only_b;
  only_b.model = "model-b";
  store_fact(ws, {targets::kReadBandwidth, "tc", 1.0, "GB/s", std::nullopt, "", "", "model-b"});
  measure_and_store_facts(ws, *target, "tc", only_b);
  EXPECT_DOUBLE_EQ(find_fact(ws, targets::kReadBandwidth, "tc", "model-b")->value, 20.0);

  targets::FactOptions unknown;
  unknown.model = "model-z";
  try {
    measure_and_store_facts(ws, *target, "tc", unknown);
    ADD_FAILURE() << "no device of model-z";
  } catch (const std::invalid_argument& e) {
    EXPECT_NE(std::string(e.what()).find("'model-z'"), std::string::npos) << e.what();
    EXPECT_NE(std::string(e.what()).find("'model-a' and 'model-b'"), std::string::npos) << e.what();
  }
}

}  // namespace
}  // namespace headway::knowledge
