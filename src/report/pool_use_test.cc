#include "report/pool_use.h"

#include <gtest/gtest.h>

#include "report/report_test_support.h"
#include "store/pool_runs.h"
#include "store/test_temp_dir.h"

namespace headway::report {
namespace {

TEST(PoolUse, HeldAndBusyTimesComeFromTheSpans) {
  const PoolUseReport p = parse_pool_use(4, "slurm", "2026-12-05T01:00:00.000Z", sample_pool_use());
  ASSERT_EQ(p.workers.size(), 2u);
  EXPECT_DOUBLE_EQ(p.workers[0].held_seconds(p.elapsed_s), 98.0) << "until the run ended";
  EXPECT_DOUBLE_EQ(p.workers[1].held_seconds(p.elapsed_s), 40.0) << "until it was lost";
  EXPECT_DOUBLE_EQ(p.workers[0].busy_seconds(), 60.0);
  EXPECT_DOUBLE_EQ(p.held_seconds(), 138.0);
  EXPECT_DOUBLE_EQ(p.busy_seconds(), 90.0);
  EXPECT_NEAR(p.busy_share(), 90.0 / 138.0, 1e-12);
  EXPECT_EQ(pool_use_line(p),
            "slurm pool of 2 devices (run ended 2026-12-05T01:00:00.000Z): 10 jobs; busy 65% of "
            "the 2.3 device-minutes held");
}

TEST(PoolUse, MalformedFieldsReadAsNothingAndBadSpansAreDropped) {
  nlohmann::json use = sample_pool_use();
  use["workers"][0]["busy"] = {{5.0, 1.0}, {"a", 2.0}, {1.0}, {-1.0, 2.0}, {3.0, 4.0}};
  use["workers"][1]["connected_s"] = "soon";
  use["elapsed_s"] = "long";
  const PoolUseReport p = parse_pool_use(1, "slurm", "", use);
  ASSERT_EQ(p.workers[0].busy.size(), 1u);
  EXPECT_EQ(p.workers[0].busy[0], (std::pair<double, double>{3.0, 4.0}));
  EXPECT_EQ(p.workers[1].held_seconds(p.elapsed_s), 0.0) << "never connected";
  EXPECT_EQ(p.elapsed_s, 0.0);
  EXPECT_TRUE(parse_pool_use(1, "slurm", "", nlohmann::json::array()).workers.empty());
  EXPECT_EQ(parse_pool_use(1, "slurm", "", {{"workers", 3}}).busy_share(), 0.0);
}

TEST(PoolUse, ThePlotHasARowPerConnectedWorkerWithItsSpans) {
  nlohmann::json use = sample_pool_use();
  use["workers"].push_back({{"name", "w3"}, {"connected_s", nullptr}});  // never connected
  const auto plot = pool_use_plot(parse_pool_use(1, "slurm", "", use));
  ASSERT_TRUE(plot);
  EXPECT_NE(plot->find("set ytics (\"w1 on dev1\" 0, \"w2 on dev2\" 1)"), std::string::npos)
      << *plot;
  EXPECT_NE(plot->find("$held << EOD\n2 100 0\n10 50 1\nEOD"), std::string::npos) << *plot;
  EXPECT_NE(plot->find("$busy << EOD\n10 40 0\n50 80 0\n10 40 1\nEOD"), std::string::npos) << *plot;
  EXPECT_NE(plot->find("busy 65%"), std::string::npos);
  EXPECT_NE(plot->find("seconds since the pool started"), std::string::npos);
  use["elapsed_s"] = 3600.0;
  EXPECT_NE(pool_use_plot(parse_pool_use(1, "slurm", "", use))->find("minutes since"),
            std::string::npos);
  EXPECT_FALSE(pool_use_plot(parse_pool_use(1, "slurm", "", {{"workers", {{{"name", "w"}}}}})));
}

TEST(PoolUse, TheWorkspacesRunsAreReadInOrder) {
  store::TestTempDir dir;
  auto ws = store::Workspace::create(dir.path()).value();
  EXPECT_TRUE(pool_use_reports(ws).empty());
  store::record_pool_run(ws.db(), "slurm", sample_pool_use());
  store::record_pool_run(ws.db(), "process",
                         {{"devices", 1}, {"workers", nlohmann::json::array()}});
  const auto pools = pool_use_reports(ws);
  ASSERT_EQ(pools.size(), 2u);
  EXPECT_EQ(pools[0].kind, "slurm");
  EXPECT_EQ(pools[0].workers.size(), 2u);
  EXPECT_EQ(pools[1].kind, "process");
  EXPECT_LT(pools[0].id, pools[1].id);
}

}  // namespace
}  // namespace headway::report
