#include "store/schema.h"

#include <gtest/gtest.h>

#include <array>

#include "store/test_temp_dir.h"

namespace headway::store {
namespace {

bool has_table(Database& db, const std::string& name) {
  Statement s = db.prepare("SELECT 1 FROM sqlite_schema WHERE type = 'table' AND name = ?1");
  s.bind(1, name);
  return s.step();
}

TEST(StoreSchema, EmptyDatabaseReachesLatestVersion) {
  TestTempDir dir;
  Database db = Database::open(dir.path() / "m.db", true).value();
  ASSERT_EQ(schema_version(db), 0);
  auto reached = upgrade_schema(db);
  ASSERT_TRUE(reached.ok()) << reached.error().message;
  EXPECT_EQ(*reached, latest_schema_version());
  EXPECT_EQ(schema_version(db), latest_schema_version());
  EXPECT_EQ(db.query_int64("PRAGMA application_id"), kApplicationId);
  for (const char* table : {"meta", "kernels", "nodes", "heads", "tests", "readings", "races"}) {
    EXPECT_TRUE(has_table(db, table)) << table;
  }
  auto again = upgrade_schema(db);
  ASSERT_TRUE(again.ok());
  EXPECT_EQ(*again, latest_schema_version());
}

TEST(StoreSchema, V2WorkspaceGainsAppendOnlyKernelTimingsKeepingItsData) {
  TestTempDir dir;
  Database db = Database::open(dir.path() / "m.db", true).value();
  ASSERT_TRUE(upgrade_schema(db, schema_steps().first(2)).ok());
  db.exec(
      "INSERT INTO kernels(name, target, baseline_ms) VALUES ('qkv', 'cpu', 2.5);"
      "INSERT INTO nodes(id, kernel, kind, source_hash, status) VALUES (1, 'qkv', 'baseline', 'h', "
      "'accepted');"
      "INSERT INTO kernels(name, target) VALUES ('ffn', 'cpu');"
      "INSERT INTO nodes(id, kernel, kind, source_hash, status) VALUES (2, 'ffn', 'baseline', 'h', "
      "'accepted');"
      "INSERT INTO facts(name, toolchain, value) VALUES ('read_bandwidth', 'g++', 7.5);");
  ASSERT_FALSE(has_table(db, "kernel_timings"));
  auto reached = upgrade_schema(db, schema_steps().first(3));
  ASSERT_TRUE(reached.ok()) << reached.error().message;
  EXPECT_EQ(*reached, 3);
  EXPECT_EQ(
      db.query_text(
          "SELECT baseline_ms || ',' || (SELECT value FROM facts) FROM kernels WHERE name = 'qkv'"),
      "2.5,7.5");
  ASSERT_TRUE(has_table(db, "kernel_timings"));
  db.exec(
      "INSERT INTO kernel_timings(kernel, toolchain, node_id, role, median_ms, cv, readings) "
      "VALUES ('qkv', 'g++', 1, 'baseline', 2.4, 0.01, 11), ('qkv', 'clang++', 1, 'baseline', 2.2, "
      "0.02, 11)");
  EXPECT_EQ(
      db.query_int64("SELECT count(*) FROM kernel_timings WHERE measured_at LIKE '____-__-__T%Z'"),
      2);
  // Append-only, roles and nodes are checked.
  EXPECT_THROW(db.exec("UPDATE kernel_timings SET median_ms = 1 WHERE toolchain = 'g++'"),
               StoreError);
  EXPECT_THROW(db.exec("DELETE FROM kernel_timings"), StoreError);
  EXPECT_THROW(
      db.exec("INSERT INTO kernel_timings(kernel, toolchain, node_id, role, median_ms, readings) "
              "VALUES ('qkv', 'g++', 1, 'candidate', 1.0, 1)"),
      StoreError);
  EXPECT_THROW(
      db.exec("INSERT INTO kernel_timings(kernel, toolchain, node_id, role, median_ms, readings) "
              "VALUES ('qkv', 'g++', 2, 'head', 1.0, 1)"),
      StoreError);
  EXPECT_EQ(db.query_int64("SELECT count(*) FROM kernel_timings"), 2);
}

TEST(StoreSchema, V3WorkspaceGainsAppendOnlyUnsandboxedRunsKeepingItsData) {
  TestTempDir dir;
  Database db = Database::open(dir.path() / "m.db", true).value();
  ASSERT_TRUE(upgrade_schema(db, schema_steps().first(3)).ok());
  db.exec("INSERT INTO kernels(name, target, baseline_ms) VALUES ('qkv', 'cpu', 2.5)");
  ASSERT_FALSE(has_table(db, "unsandboxed_runs"));
  auto reached = upgrade_schema(db, schema_steps().first(4));
  ASSERT_TRUE(reached.ok()) << reached.error().message;
  EXPECT_EQ(*reached, 4);
  EXPECT_EQ(db.query_text("SELECT baseline_ms FROM kernels WHERE name = 'qkv'"), "2.5");
  db.exec("INSERT INTO unsandboxed_runs(command) VALUES ('headway --no-sandbox check')");
  EXPECT_EQ(db.query_int64("SELECT count(*) FROM unsandboxed_runs WHERE at LIKE '____-__-__T%Z'"),
            1);
  EXPECT_THROW(db.exec("UPDATE unsandboxed_runs SET command = ''"), StoreError);
  EXPECT_THROW(db.exec("DELETE FROM unsandboxed_runs"), StoreError);
}

TEST(StoreSchema, V7WorkspaceKeepsItsTimingsAndGainsTheirReadings) {
  TestTempDir dir;
  Database db = Database::open(dir.path() / "m.db", true).value();
  ASSERT_TRUE(upgrade_schema(db, schema_steps().first(7)).ok());
  db.exec("INSERT INTO kernels(name, target) VALUES ('qkv', 'cpu')");
  db.exec(
      "INSERT INTO nodes(id, kernel, kind, source_hash, status) "
      "VALUES (1, 'qkv', 'baseline', 'h', 'accepted')");
  db.exec(
      "INSERT INTO kernel_timings(kernel, toolchain, node_id, role, median_ms, readings) "
      "VALUES ('qkv', 't', 1, 'head', 1.5, 11)");
  auto reached = upgrade_schema(db, schema_steps().first(8));
  ASSERT_TRUE(reached.ok()) << reached.error().message;
  EXPECT_EQ(*reached, 8);
  EXPECT_EQ(db.query_text("SELECT median_ms FROM kernel_timings"), "1.5");
  EXPECT_EQ(db.query_int64("SELECT count(*) FROM kernel_timings WHERE readings_ms_json IS NULL"),
            1);
  db.exec(
      "INSERT INTO kernel_timings(kernel, toolchain, node_id, role, median_ms, readings, "
      "readings_ms_json) VALUES ('qkv', 't', 1, 'head', 1.5, 2, '[1.4, 1.6]')");
  EXPECT_THROW(db.exec("UPDATE kernel_timings SET readings_ms_json = '[]'"), StoreError)
      << "still append-only";
}

constexpr std::array<SchemaStep, 3> kSteps = {{
    {1, "create", "CREATE TABLE a(x INTEGER); INSERT INTO a VALUES (1), (2);"},
    {2, "add column", "ALTER TABLE a ADD COLUMN y INTEGER; UPDATE a SET y = x * 10;"},
    {3, "second table", "CREATE TABLE b(z TEXT); INSERT INTO b SELECT 'v' || y FROM a;"},
}};

TEST(StoreSchema, AppliesOnlyNewerStepsInOrderKeepingData) {
  TestTempDir dir;
  Database db = Database::open(dir.path() / "m.db", true).value();
  ASSERT_TRUE(upgrade_schema(db, std::span(kSteps).first(1)).ok());
  db.exec("INSERT INTO a VALUES (3)");
  ASSERT_EQ(schema_version(db), 1);
  auto reached = upgrade_schema(db, kSteps);
  ASSERT_TRUE(reached.ok()) << reached.error().message;
  EXPECT_EQ(*reached, 3);
  EXPECT_EQ(schema_version(db), 3);
  EXPECT_EQ(db.query_text("SELECT group_concat(z) FROM (SELECT z FROM b ORDER BY z)"),
            "v10,v20,v30");
}

TEST(StoreSchema, FailingStepChangesNothing) {
  TestTempDir dir;
  Database db = Database::open(dir.path() / "m.db", true).value();
  ASSERT_TRUE(upgrade_schema(db, std::span(kSteps).first(1)).ok());
  constexpr std::array<SchemaStep, 3> broken = {{
      kSteps[0],
      kSteps[1],
      {3, "broken step", "CREATE TABLE b(z TEXT); INSERT INTO nowhere VALUES (1);"},
  }};
  auto reached = upgrade_schema(db, broken);
  ASSERT_FALSE(reached.ok());
  EXPECT_NE(reached.error().message.find("schema version 3 (broken step)"), std::string::npos)
      << reached.error().message;
  EXPECT_EQ(schema_version(db), 1);
  EXPECT_FALSE(has_table(db, "b"));
  EXPECT_EQ(db.query_int64("SELECT count(*) FROM pragma_table_info('a') WHERE name = 'y'"), 0);
}

TEST(StoreSchema, NewerDatabaseIsRefusedUnchanged) {
  TestTempDir dir;
  Database db = Database::open(dir.path() / "m.db", true).value();
  ASSERT_TRUE(upgrade_schema(db, kSteps).ok());
  auto reached = upgrade_schema(db, std::span(kSteps).first(2));
  ASSERT_FALSE(reached.ok());
  EXPECT_NE(reached.error().message.find("version 3 is newer than this headway (2)"),
            std::string::npos)
      << reached.error().message;
  EXPECT_EQ(schema_version(db), 3);
}

TEST(StoreSchema, GapsInTheListAreABug) {
  TestTempDir dir;
  Database db = Database::open(dir.path() / "m.db", true).value();
  constexpr std::array<SchemaStep, 2> gap = {{kSteps[0], kSteps[2]}};
  EXPECT_THROW((void)upgrade_schema(db, gap), std::logic_error);
}

}  // namespace
}  // namespace headway::store
