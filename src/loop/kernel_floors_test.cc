// The floors' facts, read from a real workspace's facts table for the current toolchain.
#include "loop/kernel_floors.h"

#include <gtest/gtest.h>

#include "kernels/contract.h"
#include "knowledge/facts.h"
#include "knowledge/workspace_target.h"
#include "store/test_temp_dir.h"
#include "targets/fact_names.h"
#include "targets/registry/test_targets.h"

namespace headway::loop {
namespace {

TEST(KernelFloors, ReadTheFactsTableOfTheCurrentToolchain) {
  store::TestTempDir dir;
  auto ws = store::Workspace::create(dir.path()).value();
  auto target = knowledge::open_workspace_target(ws).value();
  auto load = [&] { return load_floor_facts(ws, *target, knowledge::current_toolchain_id(ws)); };
  EXPECT_FALSE(load());
  const std::string gcc = knowledge::current_toolchain_id(ws);
  ASSERT_EQ(gcc.rfind("unidentified:", 0), std::string::npos) << gcc;
  knowledge::store_fact(ws, {targets::kReadBandwidth, gcc, 12.0, "GB/s", std::nullopt, "", ""});
  knowledge::store_fact(ws, {targets::kDecodeF8, gcc, 34.0, "GB/s", std::nullopt, "", ""});
  EXPECT_FALSE(load());  // one fact missing
  knowledge::store_fact(ws, {targets::kDecodeNvfp4, gcc, 56.0, "GB/s", std::nullopt, "", ""});
  auto facts = load();
  ASSERT_TRUE(facts);
  EXPECT_DOUBLE_EQ(facts->at(targets::kReadBandwidth), 12.0);
  EXPECT_DOUBLE_EQ(facts->at(targets::kDecodeF8), 34.0);
  EXPECT_DOUBLE_EQ(facts->at(targets::kDecodeNvfp4), 56.0);
  EXPECT_DOUBLE_EQ(load_or_measure_floor_facts(ws, *target).at(targets::kDecodeNvfp4),
                   56.0);  // no measuring
  const KernelContract& qkv = *builtin_kernel("qkv");
  EXPECT_DOUBLE_EQ(target->floors(qkv, *facts).memory_ms,
                   static_cast<double>(qkv.bytes_to_move()) / 12e9 * 1e3);

  ws.set_meta("cpu.toolchain", "clang++");
  EXPECT_NE(knowledge::current_toolchain_id(ws), gcc);
  EXPECT_FALSE(load());  // facts are per toolchain
  ws.set_meta("cpu.toolchain", "/nonexistent/c++");
  EXPECT_EQ(knowledge::current_toolchain_id(ws), "unidentified:/nonexistent/c++");
}

TEST(KernelFloors, APoolOfTwoModelsHasTheFloorFactsOfEach) {
  store::TestTempDir dir;
  auto ws = store::Workspace::create(dir.path()).value();
  const auto target = targets::make_test_target("test-1:bandwidths=10,20:models=model-a,model-b");
  const std::string tc = knowledge::toolchain_id_of(*target);
  EXPECT_DOUBLE_EQ(load_or_measure_floor_facts(ws, *target).at(targets::kReadBandwidth), 10.0)
      << "the first model's";
  EXPECT_DOUBLE_EQ(floor_facts_of_model(ws, *target, tc, "model-b")->at(targets::kReadBandwidth),
                   20.0);
  EXPECT_DOUBLE_EQ(floor_facts_of_model(ws, *target, tc, "model-a")->at(targets::kReadBandwidth),
                   10.0);
  EXPECT_FALSE(floor_facts_of_model(ws, *target, tc, "model-c")) << "a model without facts";
  EXPECT_FALSE(floor_facts_of_model(ws, *target, tc, "")) << "an unknown model";

  // A model whose facts are missing is measured alone; the other's stay.
  knowledge::store_fact(
      ws, {targets::kReadBandwidth, tc, 11.0, "GB/s", std::nullopt, "", "", "model-a"});
  ws.db().exec("DELETE FROM facts WHERE device_model = 'model-b'");
  load_or_measure_floor_facts(ws, *target);
  EXPECT_DOUBLE_EQ(knowledge::find_fact(ws, targets::kReadBandwidth, tc, "model-a")->value, 11.0);
  EXPECT_DOUBLE_EQ(knowledge::find_fact(ws, targets::kReadBandwidth, tc, "model-b")->value, 20.0);
}

TEST(KernelFloors, OneModelsFactsLeaveTheRecordsFloor) {
  store::TestTempDir dir;
  auto ws = store::Workspace::create(dir.path()).value();
  const auto target = targets::make_test_target("test-1:models=model-a");
  const std::string tc = knowledge::toolchain_id_of(*target);
  load_or_measure_floor_facts(ws, *target);
  EXPECT_EQ(knowledge::fact_models(ws, tc), std::vector<std::string>{"model-a"});
  EXPECT_FALSE(floor_facts_of_model(ws, *target, tc, "model-a"));
}

}  // namespace
}  // namespace headway::loop
