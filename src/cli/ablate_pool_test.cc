// `headway ablate` with a pool, on a real Slurm cluster on this machine
// (pool/slurm_cluster_test_support.h): the study's runs share one set of workers.
#include <gtest/gtest.h>

#include <algorithm>
#include <atomic>
#include <filesystem>
#include <map>
#include <nlohmann/json.hpp>
#include <set>
#include <thread>

#include "cli/cli_test_support.h"
#include "common/file_io.h"
#include "common/subprocess.h"
#include "pool/slurm_cluster_test_support.h"
#include "store/test_temp_dir.h"

namespace headway::cli {
namespace {

namespace fs = std::filesystem;
using pool::testing::SlurmCluster;

// A copy of the stand-in pack in `dir` whose time jobs take real time (as scripts/run-pool.sh
// makes it); returns its manifest.
fs::path timed_standin(const fs::path& dir) {
  fs::copy(fs::path(HEADWAY_SOURCE_DIR) / "packs/standin", dir / "pack",
           fs::copy_options::recursive);
  const fs::path manifest = dir / "pack/target.toml";
  std::string toml = read_file(manifest).value();
  const std::string from = "env = { STANDIN_FAIL_RATE = \"0.05\" }";
  const size_t at = toml.find(from);
  if (at == std::string::npos) throw std::runtime_error("the stand-in's time command changed");
  toml.replace(at, from.size(),
               "env = { STANDIN_FAIL_RATE = \"0.05\", STANDIN_TIME_SCALE = \"2000\" }");
  write_file(manifest, toml);
  return manifest;
}

// The done-when of the study's pool: 8 runs, 4 at once, on a pool of 4 workers, hold at most 4
// allocations at any moment, and every worker runs jobs of several runs. About 40 s (2 cores).
TEST(AblatePool, EightRunsFourAtOnceShareFourWorkers) {
  if (const std::string why = SlurmCluster::unavailable_reason(); !why.empty()) GTEST_SKIP() << why;
  SlurmCluster cluster(4);
  const fs::path dir = cluster.folder(), study = dir / "study";
  const fs::path manifest = timed_standin(dir);
  std::atomic<bool> done{false};
  CliRun r;
  std::thread ablate([&] {
    r = run_split("env",
                  {"HEADWAY_CACHE_DIR=" + (dir / "cache").string(),
                   HEADWAY_BINARY,
                   "ablate",
                   "--study",
                   study.string(),
                   "--target",
                   "command",
                   "--manifest",
                   manifest.string(),
                   "--runs",
                   "8",
                   "--jobs",
                   "4",
                   "--kernels",
                   "qkv",
                   "--budget",
                   "4s",
                   "--pool",
                   "slurm",
                   "--workers",
                   "4",
                   "--pool-host",
                   "127.0.0.1",
                   "--json"},
                  "", 600);
    done = true;
  });
  size_t most = 0, polls = 0;
  while (!done) {
    const ProcessResult q = run_process({"squeue", "--noheader", "--format=%i"}, 10);
    if (q.ok()) {
      most = std::max<size_t>(most, std::count(q.output.begin(), q.output.end(), '\n'));
      ++polls;
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(200));
  }
  ablate.join();
  ASSERT_EQ(r.exit_code, 0) << r.problem << r.err;
  const auto result = nlohmann::json::parse(r.out, nullptr, false);
  ASSERT_TRUE(result.is_object()) << r.out;
  EXPECT_EQ(result["ran"], 8) << r.err;
  EXPECT_GT(polls, 20u);
  EXPECT_EQ(most, 4u) << "the study holds its 4 workers' allocations, and no more";
  const auto& pool = result["pool"];
  EXPECT_EQ(pool["stats"]["workers_started"], 4) << pool.dump(2);
  EXPECT_EQ(pool["runs"].size(), 8u);
  for (const auto& w : pool["workers"]) {
    EXPECT_GE(w["runs"].size(), 2u) << "every worker runs jobs of several runs: " << w.dump();
  }
  // Each run says its jobs ran on the study's pool, and on which workers.
  std::map<std::string, int> runs_by_worker;
  for (int run = 0; run < 8; ++run) {
    const auto stored = nlohmann::json::parse(
        read_file(study / "runs/full" / std::to_string(run) / "result.json").value());
    ASSERT_TRUE(stored["pool"].is_object()) << stored.dump(2).substr(0, 2000);
    EXPECT_EQ(stored["pool"]["kind"], "study");
    EXPECT_EQ(stored["pool"]["devices"], 4);
    EXPECT_GT(stored["pool"]["stats"]["jobs"].get<int>(), 0);
    for (const auto& w : stored["pool"]["workers"]) ++runs_by_worker[w["name"].get<std::string>()];
  }
  EXPECT_EQ(runs_by_worker.size(), 4u);
  for (const auto& [worker, runs] : runs_by_worker) EXPECT_GE(runs, 2) << worker;
  EXPECT_TRUE(cluster.queue_empties_within(20)) << "the study's workers leave with it";
}

// Pool options in --optimize-args become the study's one pool, kept in study.json (no cluster
// needed: on the sim target, which keeps its device work here, the study starts no workers).
TEST(AblatePool, PoolOptionsInOptimizeArgsMakeTheStudysPool) {
  store::TestTempDir dir;
  const auto ablate = [&](std::vector<std::string> args) {
    args.insert(args.begin(), {"ablate", "--study", (dir.path() / "s").string(), "--budget", "1s",
                               "--runs", "1"});
    return run_headway(args);
  };
  CliRun r = ablate({"--optimize-args", "--pool slurm --workers 3 --confirm-calls 0"});
  EXPECT_EQ(r.exit_code, 0) << r.problem << r.err;
  EXPECT_NE(r.err.find("make the study's one pool"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("no slurm pool is started"), std::string::npos) << r.err;
  const auto spec = nlohmann::json::parse(read_file(dir.path() / "s/study.json").value());
  EXPECT_EQ(spec["pool"], nlohmann::json({{"kind", "slurm"}, {"workers", 3}}));
  EXPECT_EQ(spec["optimize_args"], nlohmann::json({"--confirm-calls", "0"}));
  // Given again, the pool must agree with the stored one; given twice, it is refused.
  r = ablate({"--pool", "slurm", "--workers", "5"});
  EXPECT_EQ(r.exit_code, 2) << r.err;
  EXPECT_NE(r.err.find("pool"), std::string::npos) << r.err;
  r = ablate({"--pool", "slurm", "--optimize-args", "--workers 3"});
  EXPECT_EQ(r.exit_code, 2) << r.err;
  EXPECT_NE(r.err.find("given twice"), std::string::npos) << r.err;
  r = ablate({"--optimize-args", "--pool cloud"});
  EXPECT_EQ(r.exit_code, 2) << r.err;
  EXPECT_NE(r.err.find("--optimize-args"), std::string::npos) << r.err;
}

}  // namespace
}  // namespace headway::cli
