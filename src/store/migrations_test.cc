#include "store/migrations.h"

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

TEST(StoreMigrations, EmptyDatabaseReachesLatestVersion) {
  TestTempDir dir;
  Database db = Database::open(dir.path() / "m.db", true).value();
  ASSERT_EQ(schema_version(db), 0);
  auto reached = migrate(db);
  ASSERT_TRUE(reached.ok()) << reached.error().message;
  EXPECT_EQ(*reached, latest_schema_version());
  EXPECT_EQ(schema_version(db), latest_schema_version());
  EXPECT_EQ(db.query_int64("PRAGMA application_id"), kApplicationId);
  for (const char* table : {"meta", "kernels", "nodes", "heads", "tests", "readings", "races"}) {
    EXPECT_TRUE(has_table(db, table)) << table;
  }
  auto again = migrate(db);
  ASSERT_TRUE(again.ok());
  EXPECT_EQ(*again, latest_schema_version());
}

constexpr std::array<Migration, 3> kSteps = {{
    {1, "create", "CREATE TABLE a(x INTEGER); INSERT INTO a VALUES (1), (2);"},
    {2, "add column", "ALTER TABLE a ADD COLUMN y INTEGER; UPDATE a SET y = x * 10;"},
    {3, "second table", "CREATE TABLE b(z TEXT); INSERT INTO b SELECT 'v' || y FROM a;"},
}};

TEST(StoreMigrations, AppliesOnlyNewerStepsInOrderKeepingData) {
  TestTempDir dir;
  Database db = Database::open(dir.path() / "m.db", true).value();
  ASSERT_TRUE(migrate(db, std::span(kSteps).first(1)).ok());
  db.exec("INSERT INTO a VALUES (3)");
  ASSERT_EQ(schema_version(db), 1);
  auto reached = migrate(db, kSteps);
  ASSERT_TRUE(reached.ok()) << reached.error().message;
  EXPECT_EQ(*reached, 3);
  EXPECT_EQ(schema_version(db), 3);
  EXPECT_EQ(db.query_text("SELECT group_concat(z) FROM (SELECT z FROM b ORDER BY z)"),
            "v10,v20,v30");
}

TEST(StoreMigrations, FailingStepChangesNothing) {
  TestTempDir dir;
  Database db = Database::open(dir.path() / "m.db", true).value();
  ASSERT_TRUE(migrate(db, std::span(kSteps).first(1)).ok());
  constexpr std::array<Migration, 3> broken = {{
      kSteps[0],
      kSteps[1],
      {3, "broken step", "CREATE TABLE b(z TEXT); INSERT INTO nowhere VALUES (1);"},
  }};
  auto reached = migrate(db, broken);
  ASSERT_FALSE(reached.ok());
  EXPECT_NE(reached.error().message.find("schema version 3 (broken step)"), std::string::npos)
      << reached.error().message;
  EXPECT_EQ(schema_version(db), 1);
  EXPECT_FALSE(has_table(db, "b"));
  EXPECT_EQ(db.query_int64("SELECT count(*) FROM pragma_table_info('a') WHERE name = 'y'"), 0);
}

TEST(StoreMigrations, NewerDatabaseIsRefusedUnchanged) {
  TestTempDir dir;
  Database db = Database::open(dir.path() / "m.db", true).value();
  ASSERT_TRUE(migrate(db, kSteps).ok());
  auto reached = migrate(db, std::span(kSteps).first(2));
  ASSERT_FALSE(reached.ok());
  EXPECT_NE(reached.error().message.find("version 3 is newer than this headway (2)"),
            std::string::npos)
      << reached.error().message;
  EXPECT_EQ(schema_version(db), 3);
}

TEST(StoreMigrations, GapsInTheListAreABug) {
  TestTempDir dir;
  Database db = Database::open(dir.path() / "m.db", true).value();
  constexpr std::array<Migration, 2> gap = {{kSteps[0], kSteps[2]}};
  EXPECT_THROW((void)migrate(db, gap), std::logic_error);
}

}  // namespace
}  // namespace headway::store
