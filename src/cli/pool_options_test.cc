#include "cli/pool_options.h"

#include <gtest/gtest.h>

#include "cli/cli_support.h"
#include "cli/cli_test_support.h"
#include "store/test_temp_dir.h"
#include "targets/registry/registry.h"

namespace headway::cli {
namespace {

TEST(PoolOptions, TheWorkspaceKeepsThePoolSoThatAResumedRunUsesIt) {
  store::TestTempDir dir;
  auto ws = store::Workspace::create(dir.path()).value();
  EXPECT_EQ(pool_config(ws, {})["kind"], "local");
  PoolArgs slurm;
  slurm.kind = "slurm";
  slurm.workers = 4;
  slurm.partition = "gpu";
  slurm.gres = "gpu:1";
  const auto first = pool_config(ws, slurm);
  EXPECT_EQ(first["workers"], 4);
  const auto resumed = pool_config(ws, {});
  EXPECT_EQ(resumed, first);
  EXPECT_EQ(pool_line(resumed), "slurm pool: 4 workers on partition gpu");
  PoolArgs more;
  more.workers = 8;  // a resumed run may change one option and keep the rest
  const auto changed = pool_config(ws, more);
  EXPECT_EQ(changed["workers"], 8);
  EXPECT_EQ(changed["gres"], "gpu:1");
  PoolArgs local;
  local.kind = "local";
  EXPECT_EQ(pool_config(ws, local), nlohmann::json({{"kind", "local"}}));
  EXPECT_EQ(start_pool(pool_config(ws, {}), *targets::make_target("command"), pool_folder(ws)),
            nullptr)
      << "local: device work stays here";
}

TEST(PoolOptions, SlurmOptionsWithoutASlurmPoolAreAUsageError) {
  store::TestTempDir dir;
  auto ws = store::Workspace::create(dir.path()).value();
  PoolArgs args;
  args.partition = "gpu";
  EXPECT_THROW(pool_config(ws, args), UsageError);
  EXPECT_EQ(pool_config(ws, {})["kind"], "local") << "nothing was stored";
}

TEST(PoolOptions, OptimizeOnATargetThatKeepsItsDeviceWorkHereStartsNoWorkers) {
  store::TestTempDir dir;
  (void)store::Workspace::create(dir.path()).value();
  const CliRun r =
      run_split(HEADWAY_BINARY, {"optimize", "--target", "sim", "--budget", "1s", "--pool", "slurm",
                                 "--workers", "2", "--workspace", dir.path().string()});
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.err.find("no slurm pool is started: the sim target runs its device work on this "
                       "machine"),
            std::string::npos)
      << r.err;
  EXPECT_FALSE(std::filesystem::exists(dir.path() / ".headway" / "pool" / "token"));
}

TEST(PoolOptions, ThePoolsStatusAsTextHasItsFiguresAndAWorkerALine) {
  const auto status = nlohmann::json::parse(R"({
    "kind": "slurm", "devices": 2,
    "stats": {"jobs": 5, "retried": 1, "workers_started": 3, "workers_lost": 1,
              "device_seconds": 120, "busy_seconds": 90, "transfer_seconds": 0.015,
              "running": 1, "queued": 4},
    "workers": [
      {"name": "w1", "launch_id": "17", "node": "dev1", "state": "running", "why": "",
       "jobs": 3, "held_seconds": 100, "busy_seconds": 60},
      {"name": "w2", "launch_id": "18", "node": "", "state": "lost",
       "why": "its connection closed during a job", "jobs": 0, "held_seconds": 0,
       "busy_seconds": 0}],
    "events": []})");
  const std::string text = pool_text(status);
  EXPECT_NE(
      text.find("pool: slurm with 2 devices; 5 jobs done, 1 running, 4 queued, 1 run "
                "again; 3 workers started, 1 lost; 2.0 device minutes held, 25% idle; 3.0 ms a "
                "job beyond its run"),
      std::string::npos)
      << text;
  EXPECT_NE(text.find("w1"), std::string::npos);
  EXPECT_NE(text.find("dev1"), std::string::npos);
  EXPECT_NE(text.find("40% idle"), std::string::npos) << text;
  EXPECT_NE(text.find("(its connection closed during a job)"), std::string::npos) << text;
  // With the scheduler's own count of what the workers held (Slurm's elapsed time).
  auto counted = status;
  counted["stats"]["scheduler_seconds"] = 126.0;
  EXPECT_NE(pool_text(counted).find("2.0 device minutes held (2.1 by the scheduler), 25% idle"),
            std::string::npos)
      << pool_text(counted);
}

}  // namespace
}  // namespace headway::cli
