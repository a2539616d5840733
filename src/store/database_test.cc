#include "store/database.h"

#include <gtest/gtest.h>

#include "store/test_temp_dir.h"

namespace headway::store {
namespace {

TEST(StoreDatabase, OpenWithoutCreateFailsForMissingFile) {
  TestTempDir dir;
  auto db = Database::open(dir.path() / "missing.db", /*create=*/false);
  ASSERT_FALSE(db.ok());
  EXPECT_NE(db.error().message.find("missing.db"), std::string::npos) << db.error().message;
  EXPECT_FALSE(std::filesystem::exists(dir.path() / "missing.db"));
}

TEST(StoreDatabase, BindsAndReadsEveryType) {
  TestTempDir dir;
  Database db = Database::open(dir.path() / "x.db", true).value();
  db.exec("CREATE TABLE t(i INTEGER, r REAL, s TEXT, n TEXT)");
  db.prepare("INSERT INTO t VALUES (?1, ?2, ?3, ?4)")
      .bind(1, int64_t{1} << 40)
      .bind(2, 2.5)
      .bind(3, std::string("a\0b", 3))
      .bind(4, std::optional<std::string>{})
      .run();
  EXPECT_EQ(db.changes(), 1);
  Statement s = db.prepare("SELECT i, r, s, n FROM t");
  ASSERT_TRUE(s.step());
  EXPECT_EQ(s.int64(0), int64_t{1} << 40);
  EXPECT_EQ(s.real(1), 2.5);
  EXPECT_EQ(s.text(2), std::string("a\0b", 3));
  EXPECT_TRUE(s.is_null(3));
  EXPECT_EQ(s.optional_text(3), std::nullopt);
  EXPECT_EQ(s.optional_int64(0), int64_t{1} << 40);
  EXPECT_FALSE(s.step());
}

TEST(StoreDatabase, BadSqlThrowsStoreError) {
  TestTempDir dir;
  Database db = Database::open(dir.path() / "x.db", true).value();
  EXPECT_THROW(db.prepare("SELEC 1"), StoreError);
  EXPECT_THROW(db.exec("CREATE TABLE"), StoreError);
  EXPECT_THROW(db.query_int64("SELECT 1 WHERE 0"), StoreError);
}

TEST(StoreDatabase, TryStepReportsConstraintWithoutThrowing) {
  TestTempDir dir;
  Database db = Database::open(dir.path() / "x.db", true).value();
  db.exec("CREATE TABLE t(k INTEGER UNIQUE)");
  db.exec("INSERT INTO t VALUES (1)");
  Statement s = db.prepare("INSERT INTO t VALUES (1)");
  EXPECT_EQ(s.try_step(), SQLITE_CONSTRAINT_UNIQUE);
  s.reset();
  try {
    s.run();
    FAIL() << "expected a StoreError";
  } catch (const StoreError& e) {
    EXPECT_EQ(e.code(), SQLITE_CONSTRAINT_UNIQUE);
  }
}

}  // namespace
}  // namespace headway::store
