#include "report/t4_export.h"

#include <gtest/gtest.h>

#include "report/report_test_support.h"

namespace headway::report {
namespace {

// The fields the T4 results schema (1.0.0) requires of every result: configuration, times,
// invalidity and correctness; invalidity from its enum.
TEST(T4Export, EveryScreenedNodeIsAResult) {
  Report r = sample_report();
  NodeReport proposed;
  proposed.node.id = 4;
  proposed.node.status = trees::NodeStatus::kProposed;
  r.kernels[0].nodes.push_back(proposed);
  const auto j = to_t4(r);
  EXPECT_EQ(j["schema_version"], "1.0.0");
  ASSERT_EQ(j["results"].size(), 3u) << "the proposed node never ran";
  const std::set<std::string> invalidity = {"timeout",     "compile",     "runtime",
                                            "correctness", "constraints", "correct"};
  for (const auto& result : j["results"]) {
    for (const char* key : {"configuration", "times", "invalidity", "correctness"})
      EXPECT_TRUE(result.contains(key)) << key;
    EXPECT_TRUE(result["configuration"].is_object());
    EXPECT_TRUE(result["times"]["runtimes"].is_array());
    EXPECT_EQ(invalidity.count(result["invalidity"].get<std::string>()), 1u);
    EXPECT_TRUE(result["correctness"].is_number());
    EXPECT_EQ(result["objectives"], nlohmann::json({"time"}));
  }
  const auto& head = j["results"][1];
  EXPECT_EQ(head["configuration"],
            nlohmann::json({{"kernel", "qkv"}, {"node", 2}, {"design", "tiled"}, {"tile", 64}}));
  EXPECT_EQ(head["times"]["runtimes"], nlohmann::json({2.2, 2.1, 2.0, 1.9}));
  EXPECT_EQ(head["invalidity"], "correct");
  EXPECT_EQ(head["correctness"], 1);
  EXPECT_EQ(head["measurements"][0],
            nlohmann::json({{"name", "time"}, {"value", 2.05}, {"unit", "ms"}}));
  const auto& failed = j["results"][2];
  EXPECT_EQ(failed["invalidity"], "compile");
  EXPECT_EQ(failed["correctness"], 0);
  EXPECT_TRUE(failed["times"]["runtimes"].empty());
}

TEST(T4Export, InvalidityByStatus) {
  using trees::NodeStatus;
  EXPECT_EQ(t4_invalidity(NodeStatus::kBuildFailed), "compile");
  EXPECT_EQ(t4_invalidity(NodeStatus::kIncorrect), "correctness");
  EXPECT_EQ(t4_invalidity(NodeStatus::kCrashed), "runtime");
  EXPECT_EQ(t4_invalidity(NodeStatus::kCheated), "runtime");
  EXPECT_EQ(t4_invalidity(NodeStatus::kTimedOut), "timeout");
  EXPECT_EQ(t4_invalidity(NodeStatus::kLintRejected), "constraints");
  EXPECT_EQ(t4_invalidity(NodeStatus::kSlower), "correct");
  EXPECT_EQ(t4_invalidity(NodeStatus::kRacedOut), "correct");
}

}  // namespace
}  // namespace headway::report
