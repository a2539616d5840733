#include "store/headway_versions.h"

#include <gtest/gtest.h>

#include <filesystem>

#include "store/schema.h"
#include "store/test_temp_dir.h"
#include "store/workspace.h"

namespace headway::store {
namespace {

TEST(HeadwayVersions, CreatorIsRecordedOnceAndEveryOtherBuildOnceEach) {
  TestTempDir dir;
  { ASSERT_TRUE(Workspace::create(dir.path()).ok()); }
  { ASSERT_TRUE(Workspace::open(dir.path()).ok()); }  // the same build again: no new row
  auto ws = Workspace::open(dir.path());
  ASSERT_TRUE(ws.ok()) << ws.error().message;
  auto versions = headway_versions(ws->db());
  ASSERT_EQ(versions.size(), 1u);
  EXPECT_EQ(versions[0].version, build_info().version);
  EXPECT_EQ(versions[0].git_commit, build_info().git_commit);
  EXPECT_EQ(versions[0].compiler, build_info().compiler);
  EXPECT_TRUE(versions[0].created_workspace);
  EXPECT_EQ(versions[0].first_at.size(), std::string("2026-01-01T00:00:00.000Z").size())
      << versions[0].first_at;

  const BuildInfo later{"99.0.0", "0123456789abcdef0123456789abcdef01234567", "Clang 20"};
  record_headway_version(ws->db(), later, false);
  record_headway_version(ws->db(), later, false);
  versions = headway_versions(ws->db());
  ASSERT_EQ(versions.size(), 2u);
  EXPECT_EQ(versions[1].version, "99.0.0");
  EXPECT_EQ(versions[1].git_commit, later.git_commit);
  EXPECT_FALSE(versions[1].created_workspace);
  EXPECT_THROW(ws->db().exec("DELETE FROM headway_versions"), StoreError);
  EXPECT_THROW(ws->db().exec("UPDATE headway_versions SET version = 'x'"), StoreError);
}

TEST(HeadwayVersions, AnOlderWorkspaceKeepsItsDataAndRecordsTheBuildThatMigratesIt) {
  TestTempDir dir;
  std::filesystem::create_directories(dir.path() / ".headway");
  {
    Database db = Database::open(Workspace::database_path(dir.path()), true).value();
    ASSERT_TRUE(upgrade_schema(db, schema_steps().first(4)).ok());
    db.exec("INSERT INTO kernels(name, target, baseline_ms) VALUES ('qkv', 'cpu', 2.5)");
  }
  auto ws = Workspace::open(dir.path());
  ASSERT_TRUE(ws.ok()) << ws.error().message;
  EXPECT_EQ(ws->schema_version(), latest_schema_version());
  EXPECT_EQ(ws->db().query_text("SELECT baseline_ms FROM kernels WHERE name = 'qkv'"), "2.5");
  const auto versions = headway_versions(ws->db());
  ASSERT_EQ(versions.size(), 1u);
  EXPECT_FALSE(versions[0].created_workspace);  // the creator is not known
  EXPECT_EQ(versions[0].version, build_info().version);
}

}  // namespace
}  // namespace headway::store
