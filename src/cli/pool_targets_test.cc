// The cpu and cuda targets on a real Slurm cluster on this machine
// (pool/slurm_cluster_test_support.h), through the verbs a user runs: `headway optimize` with
// `--pool slurm` sends each target's checks, races and tests to the workers as device jobs
// (targets/remote/), and `headway calibrate` its A/A decisions.
#include <gtest/gtest.h>

#include <fstream>
#include <nlohmann/json.hpp>
#include <set>

#include "common/subprocess.h"
#include "pool/slurm_cluster_test_support.h"

namespace headway::cli {
namespace {

namespace fs = std::filesystem;
using pool::testing::SlurmCluster;

class PoolTargets : public ::testing::Test {
 protected:
  void SetUp() override {
    if (const std::string why = SlurmCluster::unavailable_reason(); !why.empty())
      GTEST_SKIP() << why;
    cluster_ = std::make_unique<SlurmCluster>(4);
  }
  ProcessResult headway(std::vector<std::string> args, const fs::path& cwd = {}) const {
    args.insert(args.begin(),
                {"env", "HEADWAY_CACHE_DIR=" + (dir() / "cache").string(), HEADWAY_BINARY});
    return run_process(args, 600, cwd.string());
  }
  static nlohmann::json last_json(const std::string& output) {
    const size_t at = output.find("\n{");
    return nlohmann::json::parse(output.substr(at == std::string::npos ? 0 : at + 1), nullptr,
                                 false);
  }
  // The workers of the run's pool that ran jobs.
  static std::set<std::string> busy_workers(const nlohmann::json& pool) {
    std::set<std::string> out;
    for (const auto& w : pool["workers"]) {
      if (w["jobs"].get<int64_t>() > 0) out.insert(w["name"].get<std::string>());
    }
    return out;
  }
  const fs::path& dir() const { return cluster_->folder(); }
  std::unique_ptr<SlurmCluster> cluster_;
};

// The emulated cuda toolchain end to end on four workers: the builds here, every check, race and
// pair on the workers, each of which runs jobs.
TEST_F(PoolTargets, TheCudaTargetRunsItsDeviceWorkOnFourWorkers) {
  const fs::path ws = dir() / "cuda";
  ProcessResult r = headway({"init", ws.string(), "--target", "cuda", "--toolchain", "emulated"});
  ASSERT_TRUE(r.ok()) << r.output;
  r = headway({"optimize", "--workspace", ws.string(), "--kernels", "attn_out", "--budget", "45s",
               "--pool", "slurm", "--workers", "4", "--pool-host", "127.0.0.1", "--json"});
  ASSERT_TRUE(r.ok()) << r.output;
  const auto j = last_json(r.output);
  ASSERT_TRUE(j.is_object()) << r.output;
  EXPECT_EQ(j["pool"]["devices"], 4) << j["pool"].dump();
  EXPECT_EQ(busy_workers(j["pool"]).size(), 4u) << j["pool"].dump();
  EXPECT_GE(j["proposed"].get<int>(), 1);
  ASSERT_EQ(j["kernels"].size(), 1u);
  EXPECT_TRUE(j["kernels"][0]["failure"].is_null()) << j["kernels"][0].dump();
  EXPECT_GT(j["kernels"][0]["baseline_ms"].get<double>(), 0.0);
}

// The cpu target on two nodes: a user's kernel whose baseline is wrong is stopped by the check on
// a node, one whose baseline is right is timed from its spec there, and attn_out's tests are
// decided on the nodes.
TEST_F(PoolTargets, TheCpuTargetOnTwoNodesStopsAWrongKernelAndDecidesTheOthers) {
  const fs::path ws = dir() / "cpu", specs = dir() / "specs";
  ProcessResult r = headway({"init", ws.string()});
  ASSERT_TRUE(r.ok()) << r.output;
  for (const std::string name : {"mulk", "wrongk"}) {
    r = headway({"kernel", "new", name, "--dir", specs.string()});
    ASSERT_TRUE(r.ok()) << r.output;
  }
  {
    const fs::path baseline = specs / "wrongk" / "wrongk_cpu.cc";
    std::ifstream in(baseline);
    std::string text((std::istreambuf_iterator<char>(in)), {});
    const std::string from = "a->out[i] = ";
    const size_t at = text.find(from);
    ASSERT_NE(at, std::string::npos) << text;
    text.insert(at + from.size(), "(uint16_t)0 * ");
    std::ofstream(baseline) << text;
  }
  for (const std::string name : {"mulk", "wrongk"}) {
    r = headway(
        {"kernel", "add", (specs / name / (name + ".toml")).string(), "--workspace", ws.string()});
    ASSERT_TRUE(r.ok()) << r.output;
  }
  r = headway({"optimize", "--workspace", ws.string(), "--kernels", "attn_out,mulk,wrongk",
               "--budget", "90s", "--pool", "slurm", "--workers", "2", "--pool-host", "127.0.0.1",
               "--json"});
  EXPECT_EQ(r.exit_code, 1) << "a kernel stopped: " << r.output;
  const auto j = last_json(r.output);
  ASSERT_TRUE(j.is_object()) << r.output;
  ASSERT_EQ(j["kernels_stopped"].size(), 1u) << j.dump(2);
  const std::string why = j["kernels_stopped"]["wrongk"];
  EXPECT_EQ(why.rfind("its baseline ", 0), 0u) << why;
  std::set<std::string> timed;
  for (const auto& k : j["kernels"]) {
    timed.insert(k["name"].get<std::string>());
    EXPECT_TRUE(k["failure"].is_null()) << k.dump();
    EXPECT_GT(k["head_ms"].get<double>(), 0.0) << k.dump();
  }
  EXPECT_EQ(timed, (std::set<std::string>{"attn_out", "mulk"}));
  EXPECT_GE(j["tests"].get<int>(), 1) << j.dump(2);
  EXPECT_EQ(busy_workers(j["pool"]).size(), 2u) << j["pool"].dump();
  EXPECT_NE(r.output.find("times on its nodes' cores: without --exclusive"), std::string::npos)
      << r.output;
}

// A/A through the pool: the two copies of the baseline paired on the nodes, each decision's
// pairs in jobs of its own; FASTER stays rare: at alpha 0.05, 4 or more of 20 has probability
// 1.6% (0.3% at the 3% measured on this machine without a pool). The error rate itself is
// measured over many more decisions (docs/PERFORMANCE.md).
TEST_F(PoolTargets, ACpuAaCalibrationThroughThePoolStaysUnderAlpha) {
  const ProcessResult r =
      headway({"calibrate", "--target", "cpu", "--kernel", "attn_out", "--decisions", "20",
               "--pool", "slurm", "--workers", "2", "--pool-host", "127.0.0.1", "--json"});
  ASSERT_TRUE(r.ok()) << r.output;
  const auto j = last_json(r.output);
  ASSERT_TRUE(j.is_object()) << r.output;
  EXPECT_EQ(j["decisions"], 20) << j.dump(2);
  int64_t all = 0;
  for (const auto& [outcome, count] : j["outcomes"].items()) all += count["count"].get<int64_t>();
  EXPECT_EQ(all, 20) << j.dump(2);
  EXPECT_LE(j["faster_rate"].get<double>() * 20, 3.0 + 1e-9) << j.dump(2);
  EXPECT_NE(r.output.find("pool: slurm with 2 devices"), std::string::npos) << r.output;
}

}  // namespace
}  // namespace headway::cli
