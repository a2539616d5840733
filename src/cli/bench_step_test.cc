// `headway bench --step` as a user runs it, on the sim target and the cpu target: the step is the
// sum of each round's readings, the floor the sum of the kernels' floors (on the cpu, measured in
// every round); bad combinations exit 2.
#include "cli/bench_step.h"

#include <fmt/format.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <map>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "cli/cli_test_support.h"
#include "store/test_temp_dir.h"

namespace headway::cli {
namespace {

double median_of(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  const size_t n = v.size();
  return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

void expect_step_adds_up(const nlohmann::json& j, size_t rounds) {
  ASSERT_EQ(j["kernels"].size(), 3u) << j.dump(2);
  EXPECT_EQ(j["kernels"][0]["name"], "qkv");
  EXPECT_EQ(j["kernels"][1]["name"], "attn_out");
  EXPECT_EQ(j["kernels"][2]["name"], "ffn");
  EXPECT_EQ(j["rounds"], rounds);
  const auto& step = j["step"];
  double floors = 0.0;
  for (const auto& k : j["kernels"]) {
    // The sim floor: the kernel's bytes at 50 GB/s; its baseline reads about 6x that.
    floors += double(k["floor_ms"]);
    EXPECT_NEAR(double(k["ratio_to_floor"]), 6.0, 0.5) << k.dump();
    EXPECT_EQ(k["below_floor"], false);
    ASSERT_EQ(k["readings_ms"].size(), rounds);
    const auto interval = k["median_interval_ms"];
    EXPECT_LE(double(interval[0]), double(k["median_ms"]));
    EXPECT_GE(double(interval[1]), double(k["median_ms"]));
  }
  EXPECT_NEAR(double(step["floor_ms"]), floors, 1e-12);
  ASSERT_EQ(step["readings_ms"].size(), rounds);
  std::vector<double> step_ms;
  for (size_t r = 0; r < rounds; ++r) {
    double sum = 0.0;
    for (const auto& k : j["kernels"]) sum += double(k["readings_ms"][r]);
    EXPECT_NEAR(double(step["readings_ms"][r]), sum, 1e-9 * sum) << "round " << r;
    step_ms.push_back(step["readings_ms"][r]);
  }
  EXPECT_DOUBLE_EQ(double(step["median_ms"]), median_of(step_ms));
  EXPECT_NEAR(double(step["ratio_to_floor"]), double(step["median_ms"]) / floors, 1e-9);
  EXPECT_NEAR(double(step["ratio_to_floor"]), 6.0, 0.5);
  EXPECT_EQ(step["below_floor"], false);
  const auto interval = step["median_interval_ms"];
  EXPECT_LE(double(interval[0]), double(step["median_ms"]));
  EXPECT_GE(double(interval[1]), double(step["median_ms"]));
  EXPECT_GE(double(step["interval_coverage"]), 0.95);
  EXPECT_FALSE(step["bimodal"]) << "1% log-normal noise has one mode";
  EXPECT_TRUE(step["modes_ms"].is_null());
}

TEST(BenchStep, TimesTheBaselinesBackToBackAgainstTheSumOfTheFloors) {
  store::TestTempDir tmp;  // no workspace up from here
  const CliRun run = run_headway(
      {"bench", "--step", "--target", "sim", "--readings", "11", "--json"}, tmp.path().string());
  ASSERT_EQ(run.exit_code, 0) << run.err;
  const auto j = nlohmann::json::parse(run.out);
  EXPECT_EQ(j["target"], "sim");
  EXPECT_EQ(j["sources"], "baselines");
  bool bandwidth = false;
  for (const auto& f : j["facts"]) bandwidth |= f["name"] == "read_bandwidth" && f["value"] == 50.0;
  EXPECT_TRUE(bandwidth) << j["facts"].dump();
  // The sim target's floor does not move with the hour: its facts are measured once, before.
  EXPECT_EQ(
      j["floor"],
      nlohmann::json({{"around", false}, {"held", true}, {"moved_pct", 0.0}, {"timings", 1}}));
  EXPECT_TRUE(j["workspace"].is_null());
  for (const auto& k : j["kernels"]) EXPECT_EQ(k["source"], "baseline");
  expect_step_adds_up(j, 11);

  const CliRun text =
      run_headway({"bench", "--step", "--target", "sim", "--readings", "7"}, tmp.path().string());
  ASSERT_EQ(text.exit_code, 0) << text.err;
  EXPECT_NE(text.out.find("decode step: "), std::string::npos) << text.out;
  EXPECT_NE(text.out.find("x the sum of the floors"), std::string::npos) << text.out;
}

TEST(BenchStep, TimesTheHeadsOfTheWorkspaceItRunsIn) {
  store::TestTempDir tmp;
  const std::string ws = (tmp.path() / "ws").string();
  ASSERT_EQ(run_headway({"init", ws, "--target", "sim"}).exit_code, 0);
  const CliRun optimized = run_headway(
      {"optimize", "--target", "sim", "--kernels", "attn_out", "--budget", "5m", "--json"}, ws,
      300.0);
  ASSERT_EQ(optimized.exit_code, 0) << optimized.err;
  const auto head_node = nlohmann::json::parse(optimized.out)["kernels"][0]["head_node"];
  const CliRun run = run_headway({"bench", "--step", "--readings", "9", "--json"}, ws);
  ASSERT_EQ(run.exit_code, 0) << run.err;
  const auto j = nlohmann::json::parse(run.out);
  EXPECT_EQ(j["sources"], "heads");
  EXPECT_EQ(j["target"], "sim") << "the workspace's target, not bench's default";
  ASSERT_EQ(j["kernels"].size(), 3u);
  EXPECT_EQ(j["kernels"][0]["source"], "baseline (not in the workspace)");
  EXPECT_EQ(j["kernels"][1]["source"], fmt::format("head (node {})", head_node.get<int64_t>()));
  EXPECT_LT(double(j["kernels"][1]["ratio_to_floor"]), 3.0)
      << "the sim library's head, not the baseline at 6x the floor";
  EXPECT_EQ(j["kernels"][2]["source"], "baseline (not in the workspace)");
  const auto& step = j["step"];
  ASSERT_EQ(step["readings_ms"].size(), 9u);
  for (size_t r = 0; r < 9; ++r) {
    double sum = 0.0;
    for (const auto& k : j["kernels"]) sum += double(k["readings_ms"][r]);
    EXPECT_NEAR(double(step["readings_ms"][r]), sum, 1e-9 * sum) << "round " << r;
  }
  // Named with --workspace from elsewhere too.
  const CliRun named = run_headway(
      {"bench", "--step", "--workspace", ws, "--readings", "3", "--json"}, tmp.path().string());
  ASSERT_EQ(named.exit_code, 0) << named.err;
  EXPECT_EQ(nlohmann::json::parse(named.out)["sources"], "heads");
}

// With the attention spec added, each round reads qkv, the attention at every timed shape set
// (never filling, which is check-only), attn_out and ffn; the step stays the three projections,
// and each layer is the step and the attention at one shape set, its floor theirs summed.
TEST(BenchStep, AWorkspaceWithTheAttentionKernelTimesAWholeLayerPerShapeSet) {
  store::TestTempDir tmp;
  const std::string ws = (tmp.path() / "ws").string();
  ASSERT_EQ(run_headway({"init", ws, "--target", "sim"}).exit_code, 0);
  const CliRun without = run_headway({"bench", "--step", "--readings", "3"}, ws);
  ASSERT_EQ(without.exit_code, 0) << without.err;
  EXPECT_NE(without.out.find("no attention kernel in the workspace"), std::string::npos)
      << without.out;
  const std::string spec =
      std::string(HEADWAY_SOURCE_DIR) + "/kernels/specs/gemma4/attn_decode/attn_decode.toml";
  ASSERT_EQ(run_headway({"kernel", "add", spec}, ws).exit_code, 0);

  const CliRun run = run_headway({"bench", "--step", "--readings", "5", "--json"}, ws);
  ASSERT_EQ(run.exit_code, 0) << run.err;
  const auto j = nlohmann::json::parse(run.out);
  const std::vector<std::string> order = {
      "qkv", "attn_decode@sliding", "attn_decode@global4k", "attn_decode@global32k", "attn_out",
      "ffn"};
  ASSERT_EQ(j["kernels"].size(), order.size()) << j.dump(2);
  std::map<std::string, nlohmann::json> by_name;
  for (size_t k = 0; k < order.size(); ++k) {
    EXPECT_EQ(j["kernels"][k]["name"], order[k]);
    by_name[order[k]] = j["kernels"][k];
  }
  const std::vector<std::string> step_kernels = {"qkv", "attn_out", "ffn"};
  double step_floor = 0.0;
  for (const auto& name : step_kernels) step_floor += double(by_name[name]["floor_ms"]);
  EXPECT_NEAR(double(j["step"]["floor_ms"]), step_floor, 1e-12);
  ASSERT_EQ(j["layers"].size(), 3u);
  for (size_t l = 0; l < 3; ++l) {
    const auto& layer = j["layers"][l];
    const std::string kind = order[1 + l].substr(order[1 + l].find('@') + 1);
    SCOPED_TRACE(kind);
    EXPECT_EQ(layer["kind"], kind);
    const auto& attention = by_name[order[1 + l]];
    EXPECT_NEAR(double(layer["floor_ms"]), step_floor + double(attention["floor_ms"]), 1e-12);
    ASSERT_EQ(layer["readings_ms"].size(), 5u);
    for (size_t r = 0; r < 5; ++r) {
      double step = 0.0;
      for (const auto& name : step_kernels) step += double(by_name[name]["readings_ms"][r]);
      EXPECT_NEAR(double(j["step"]["readings_ms"][r]), step, 1e-9 * step);
      const double sum = step + double(attention["readings_ms"][r]);
      EXPECT_NEAR(double(layer["readings_ms"][r]), sum, 1e-9 * sum) << "round " << r;
    }
    EXPECT_NEAR(double(layer["ratio_to_floor"]),
                double(layer["median_ms"]) / double(layer["floor_ms"]), 1e-9);
    EXPECT_EQ(layer["below_floor"], false);
  }

  const CliRun text = run_headway({"bench", "--step", "--readings", "3"}, ws);
  ASSERT_EQ(text.exit_code, 0) << text.err;
  EXPECT_NE(text.out.find("decode layer (global32k attention): "), std::string::npos) << text.out;
  EXPECT_LT(text.out.find("decode layer (sliding attention): "), text.out.find("floor ms"))
      << "the layer leads\n"
      << text.out;
  EXPECT_EQ(text.out.find("no attention kernel"), std::string::npos) << text.out;
}

// On the cpu target (it times on the host) the floor is measured in every round: each kernel, the
// step and a layer are judged by the median of their rounds' ratios to their rounds' floors, and
// the measurements around the rounds are read once, shown for reference.
TEST(BenchStep, OnTheCpuEachRoundIsJudgedAgainstTheFloorMeasuredInIt) {
  store::TestTempDir cache;
  setenv("HEADWAY_CACHE_DIR", cache.path().c_str(), 1);
  const CliRun run =
      run_headway({"bench", "--step", "--target", "cpu", "--readings", "3", "--json"}, "", 600.0);
  ASSERT_EQ(run.exit_code, 0) << run.problem << run.err;
  const auto j = nlohmann::json::parse(run.out);
  EXPECT_TRUE(j["floor"]["around"]);
  EXPECT_EQ(j["floor"]["timings"], 1) << "the rounds are judged by their own floors";
  const auto& bandwidth = j["round_read_bandwidth_gbps"];
  ASSERT_EQ(bandwidth.size(), 3u) << j.dump(2);
  std::vector<double> step_floors(3, 0.0);
  for (const auto& k : j["kernels"]) {
    SCOPED_TRACE(k["name"].get<std::string>());
    const auto& floors = k["floor_ms_by_round"];
    ASSERT_EQ(floors.size(), 3u);
    std::vector<double> ratios, by_round;
    for (size_t r = 0; r < 3; ++r) {
      // A memory floor is the kernel's bytes over its round's bandwidth.
      EXPECT_NEAR(double(floors[r]) * double(bandwidth[r]),
                  double(floors[0]) * double(bandwidth[0]),
                  1e-9 * double(floors[0]) * double(bandwidth[0]));
      ratios.push_back(double(k["readings_ms"][r]) / double(floors[r]));
      by_round.push_back(floors[r]);
      step_floors[r] += double(floors[r]);
    }
    EXPECT_DOUBLE_EQ(double(k["ratio_to_floor"]), median_of(ratios));
    EXPECT_DOUBLE_EQ(double(k["floor_ms"]), median_of(by_round));
  }
  const auto& step = j["step"];
  std::vector<double> ratios;
  for (size_t r = 0; r < 3; ++r) {
    EXPECT_NEAR(double(step["floor_ms_by_round"][r]), step_floors[r], 1e-9 * step_floors[r]);
    ratios.push_back(double(step["readings_ms"][r]) / double(step["floor_ms_by_round"][r]));
  }
  EXPECT_NEAR(double(step["ratio_to_floor"]), median_of(ratios), 1e-12);
  const auto& interval = step["ratio_interval"];
  EXPECT_LE(double(interval[0]), double(step["ratio_to_floor"]));
  EXPECT_GE(double(interval[1]), double(step["ratio_to_floor"]));
}

TEST(BenchStep, RejectsWhatDoesNotGoWithIt) {
  store::TestTempDir tmp;
  const std::string ws = (tmp.path() / "ws").string();
  ASSERT_EQ(run_headway({"init", ws, "--target", "sim"}).exit_code, 0);
  const std::vector<std::pair<std::vector<std::string>, std::string>> cases = {
      {{"bench", "--step", "--target", "sim", "--kernel", "qkv"}, "no --kernel"},
      {{"bench", "--step", "--target", "sim", "--source", "x.cc"}, "no --source"},
      {{"bench", "--step", "--peers", "--target", "sim"}, "separate runs"},
      {{"bench", "--target", "sim", "--workspace", ws},
       "--workspace goes with --step, --peers or --kernel"},
      {{"bench", "--step", "--workspace", ws, "--target", "cpu"}, "the workspace's target is sim"},
      {{"bench", "--step", "--workspace", ws, "--toolchain", "sim-2"}, "--toolchain"},
  };
  for (const auto& [args, why] : cases) {
    const CliRun run = run_headway(args, tmp.path().string());
    EXPECT_EQ(run.exit_code, 2) << why << "\n" << run.err;
    EXPECT_NE(run.err.find(why), std::string::npos) << run.err;
  }
}

}  // namespace
}  // namespace headway::cli
