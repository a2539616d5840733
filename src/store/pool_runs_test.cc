#include "store/pool_runs.h"

#include <gtest/gtest.h>

#include "store/test_temp_dir.h"
#include "store/workspace.h"

namespace headway::store {
namespace {

TEST(PoolRuns, RunsAreKeptInOrderWithTheirUseAndNeverChanged) {
  TestTempDir dir;
  auto ws = Workspace::create(dir.path());
  ASSERT_TRUE(ws.ok()) << ws.error().message;
  EXPECT_TRUE(pool_runs(ws->db()).empty());
  const nlohmann::json first = {{"devices", 2}, {"workers", {{{"busy", {{0.5, 1.25}}}}}}};
  record_pool_run(ws->db(), "slurm", first);
  record_pool_run(ws->db(), "process", {{"devices", 1}});
  const auto runs = pool_runs(ws->db());
  ASSERT_EQ(runs.size(), 2u);
  EXPECT_EQ(runs[0].kind, "slurm");
  EXPECT_EQ(runs[0].use, first);
  EXPECT_EQ(runs[0].use["workers"][0]["busy"][0][1], 1.25);
  EXPECT_EQ(runs[1].kind, "process");
  EXPECT_LT(runs[0].id, runs[1].id);
  EXPECT_FALSE(runs[1].at.empty());
  EXPECT_THROW(ws->db().exec("UPDATE pool_runs SET kind = 'x'"), StoreError);
  EXPECT_THROW(ws->db().exec("DELETE FROM pool_runs"), StoreError);
  EXPECT_THROW(ws->db().exec("INSERT INTO pool_runs(kind, use_json) VALUES ('slurm', '{')"),
               StoreError)
      << "only JSON is stored";
}

}  // namespace
}  // namespace headway::store
