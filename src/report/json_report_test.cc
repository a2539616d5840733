#include "report/json_report.h"

#include <gtest/gtest.h>

#include "report/report_test_support.h"

namespace headway::report {
namespace {

TEST(JsonReport, PoolsCarryEachWorkersSpans) {
  Report r = sample_report();
  EXPECT_EQ(to_json(r)["pools"], nlohmann::json::array());
  r.pools = {sample_pool()};
  const auto p = to_json(r)["pools"][0];
  EXPECT_EQ(p["id"], 7);
  EXPECT_EQ(p["kind"], "slurm");
  EXPECT_EQ(p["devices"], 2);
  EXPECT_DOUBLE_EQ(p["held_seconds"].get<double>(), 138.0);
  EXPECT_DOUBLE_EQ(p["busy_seconds"].get<double>(), 90.0);
  ASSERT_EQ(p["workers"].size(), 2u);
  EXPECT_TRUE(p["workers"][0]["ended_s"].is_null());
  EXPECT_EQ(p["workers"][1]["ended_s"], 50.0);
  EXPECT_EQ(p["workers"][0]["busy"], nlohmann::json({{10.0, 40.0}, {50.0, 80.0}}));
  EXPECT_DOUBLE_EQ(p["workers"][1]["held_seconds"].get<double>(), 40.0);
}

TEST(JsonReport, PerKernelPerNodePerTest) {
  Report r = sample_report();
  r.kernels[0].decode_ms = NAN;
  const auto j = to_json(r);
  EXPECT_EQ(j["schema"], "headway-report/1");
  for (const char* key :
       {"workspace", "target", "toolchain", "headway", "generated_at", "geomean_speedup",
        "device_seconds", "agents", "knowledge", "calibration", "calibration_from",
        "unsandboxed_runs", "pools", "kernels", "decision_rate"})
    EXPECT_TRUE(j.contains(key)) << key;
  EXPECT_EQ(j["decision_rate"]["decisions"], 3);
  EXPECT_DOUBLE_EQ(j["decision_rate"]["timed_share"].get<double>(), 0.5);
  const auto& k = j["kernels"][0];
  EXPECT_EQ(k["name"], "qkv");
  EXPECT_EQ(k["ratio_to_floor"], 2.0);
  EXPECT_TRUE(k["decode_floor_ms"].is_null()) << "unknown numbers are null";
  EXPECT_TRUE(k["ratio_to_decode_ceiling"].is_null());
  ASSERT_EQ(k["nodes"].size(), 3u);
  EXPECT_EQ(k["nodes"][1]["params"]["tile"], 64);
  EXPECT_TRUE(k["nodes"][1]["head"].get<bool>());
  EXPECT_TRUE(k["nodes"][0]["parent"].is_null());
  EXPECT_EQ(k["nodes"][2]["status"], "build-failed");
  EXPECT_EQ(k["nodes"][1]["race_ms"], nlohmann::json({2.2, 2.1}));
  ASSERT_EQ(k["tests"].size(), 1u);
  const auto& t = k["tests"][0];
  EXPECT_EQ(t["outcome"], "FASTER");
  EXPECT_EQ(t["readings"].size(), 4u);
  EXPECT_EQ(t["readings"][1]["ms"], 2.0);
  EXPECT_EQ(t["rule_config"]["s0"], 0.02);
  EXPECT_EQ(t["rule_config_source"], "recorded");
  ASSERT_EQ(t["wealth"].size(), r.kernels[0].tests[0].wealth.size());
  EXPECT_EQ(t["wealth"][0]["pair"], 1);
  EXPECT_EQ(t["wealth"].back()["faster"], r.kernels[0].tests[0].wealth.back().faster);
  EXPECT_EQ(j["knowledge"]["citations"]["supported-by-text"], 12);
  EXPECT_EQ(j["agents"]["roles"][0]["role"], "design");
}

}  // namespace
}  // namespace headway::report
