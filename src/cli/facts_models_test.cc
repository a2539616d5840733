// `headway facts` on a workspace with chip facts of two device models: the real headway binary,
// the facts seeded in its workspace (as a pool of two models leaves them).
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "cli/cli_test_support.h"
#include "knowledge/facts.h"
#include "knowledge/workspace_target.h"
#include "store/test_temp_dir.h"
#include "targets/registry/test_targets.h"

namespace headway::cli {
namespace {

class FactsModels : public ::testing::Test {
 protected:
  void SetUp() override {
    ASSERT_EQ(run_headway({"init", ws_, "--target", "cpu"}).exit_code, 0);
    auto opened = store::Workspace::open(ws_).value();
    const std::string tc = knowledge::current_toolchain_id(opened);
    knowledge::store_fact(opened,
                          {"read_bandwidth", tc, 10.0, "GB/s", std::nullopt, "m", "", "model-a"});
    knowledge::store_fact(opened,
                          {"read_bandwidth", tc, 20.0, "GB/s", std::nullopt, "m", "", "model-b"});
  }
  store::TestTempDir tmp_;
  std::string ws_ = (tmp_.path() / "ws").string();
};

TEST_F(FactsModels, ListEachModelsSetAndOneModelsAlone) {
  const CliRun all = run_headway({"facts", "--workspace", ws_});
  ASSERT_EQ(all.exit_code, 0) << all.err;
  EXPECT_NE(all.out.find("device model: model-a\n  read_bandwidth"), std::string::npos) << all.out;
  EXPECT_NE(all.out.find("device model: model-b\n  read_bandwidth"), std::string::npos) << all.out;

  const CliRun b = run_headway({"facts", "--workspace", ws_, "--model", "model-b", "--json"});
  ASSERT_EQ(b.exit_code, 0) << b.err;
  const auto j = nlohmann::json::parse(b.out);
  ASSERT_EQ(j["facts"].size(), 1u) << j.dump(2);
  EXPECT_EQ(j["facts"][0]["device_model"], "model-b");
  EXPECT_EQ(j["facts"][0]["value"], 20.0);
  EXPECT_FALSE(j["measured"].get<bool>());
}

TEST_F(FactsModels, AModelWithoutFactsOrDevicesIsAUsageErrorNamingTheModels) {
  const CliRun none = run_headway({"facts", "--workspace", ws_, "--model", "model-z"});
  EXPECT_EQ(none.exit_code, 2);
  EXPECT_NE(none.err.find("no chip facts of device model 'model-z'"), std::string::npos)
      << none.err;
  EXPECT_NE(none.err.find("'model-a' and 'model-b'"), std::string::npos) << none.err;

  // This machine's one device is of another model: nothing to measure on, nothing measured.
  const CliRun measure =
      run_headway({"facts", "--workspace", ws_, "--measure", "--model", "model-z"});
  EXPECT_EQ(measure.exit_code, 2);
  EXPECT_NE(measure.err.find("no device of model 'model-z'"), std::string::npos) << measure.err;
  EXPECT_NE(measure.err.find("'" + targets::test_cpu_target().device_model() + "'"),
            std::string::npos)
      << measure.err;
  auto opened = store::Workspace::open(ws_).value();
  EXPECT_EQ(knowledge::list_facts(opened).size(), 2u);
}

}  // namespace
}  // namespace headway::cli
