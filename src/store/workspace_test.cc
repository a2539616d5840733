#include "store/workspace.h"

#include <gtest/gtest.h>

#include <fstream>
#include <iterator>

#include "store/schema.h"
#include "store/test_temp_dir.h"

namespace headway::store {
namespace {

namespace fs = std::filesystem;

std::string file_bytes(const fs::path& path) {
  std::ifstream in(path, std::ios::binary);
  return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}

bool contains(const std::string& text, const std::string& part) {
  return text.find(part) != std::string::npos;
}

// Opens the file with plain SQLite (no headway checks), runs sql, and closes, so that the WAL is
// checkpointed into the main file.
void raw_exec(const fs::path& path, const std::string& sql) {
  Database db = Database::open(path, true).value();
  db.exec(sql);
}

TEST(StoreWorkspace, CreateSetsUpDatabaseAndArtifacts) {
  TestTempDir dir;
  auto ws = Workspace::create(dir.path() / "proj");
  ASSERT_TRUE(ws.ok()) << ws.error().message;
  EXPECT_EQ(ws->root(), fs::weakly_canonical(dir.path() / "proj"));
  EXPECT_TRUE(fs::is_regular_file(dir.path() / "proj/.headway/headway.db"));
  EXPECT_TRUE(fs::is_directory(dir.path() / "proj/.headway/artifacts"));
  EXPECT_EQ(ws->artifacts().root(), ws->root() / ".headway/artifacts");
  Database& db = ws->db();
  EXPECT_EQ(db.query_text("PRAGMA journal_mode"), "wal");
  EXPECT_EQ(db.query_int64("PRAGMA foreign_keys"), 1);
  EXPECT_EQ(db.query_int64("PRAGMA synchronous"), 1);  // NORMAL
  EXPECT_EQ(ws->schema_version(), latest_schema_version());
  EXPECT_EQ(db.query_int64("PRAGMA application_id"), kApplicationId);
  EXPECT_TRUE(ws->meta("created_at").has_value());
}

TEST(StoreWorkspace, CreateRefusesAnExistingWorkspace) {
  TestTempDir dir;
  ASSERT_TRUE(Workspace::create(dir.path()).ok());
  const std::string before = file_bytes(Workspace::database_path(dir.path()));
  auto again = Workspace::create(dir.path());
  ASSERT_FALSE(again.ok());
  EXPECT_TRUE(contains(again.error().message, "already exists")) << again.error().message;
  EXPECT_EQ(again.error().code, ErrorCode::kConflict);
  EXPECT_EQ(file_bytes(Workspace::database_path(dir.path())), before);
}

TEST(StoreWorkspace, OpenFindsOnlyExactDirectoryFindSearchesUpward) {
  TestTempDir dir;
  ASSERT_TRUE(Workspace::create(dir.path() / "w").ok());
  fs::create_directories(dir.path() / "w/a/b");
  EXPECT_TRUE(Workspace::open(dir.path() / "w").ok());
  auto exact = Workspace::open(dir.path() / "w/a/b");
  ASSERT_FALSE(exact.ok());
  EXPECT_TRUE(contains(exact.error().message, "no headway workspace at")) << exact.error().message;
  EXPECT_EQ(exact.error().code, ErrorCode::kNotFound);

  auto found = Workspace::find(dir.path() / "w/a/b");
  ASSERT_TRUE(found.ok()) << found.error().message;
  EXPECT_EQ(found->root(), fs::weakly_canonical(dir.path() / "w"));
  EXPECT_EQ(Workspace::locate(dir.path() / "w/a"), fs::weakly_canonical(dir.path() / "w"));

  auto none = Workspace::find(dir.path());
  ASSERT_FALSE(none.ok());
  EXPECT_TRUE(contains(none.error().message, "or any parent")) << none.error().message;
  EXPECT_EQ(none.error().code, ErrorCode::kNotFound);
  EXPECT_FALSE(fs::exists(dir.path() / ".headway"));
}

TEST(StoreWorkspace, NestedWorkspaceWinsOverOuter) {
  TestTempDir dir;
  ASSERT_TRUE(Workspace::create(dir.path()).ok());
  ASSERT_TRUE(Workspace::create(dir.path() / "inner").ok());
  EXPECT_EQ(Workspace::locate(dir.path() / "inner"), fs::weakly_canonical(dir.path() / "inner"));
}

TEST(StoreWorkspace, NewerSchemaIsRefusedAndFileLeftByteIdentical) {
  TestTempDir dir;
  ASSERT_TRUE(Workspace::create(dir.path()).ok());
  const fs::path path = Workspace::database_path(dir.path());
  raw_exec(path, "PRAGMA user_version = 99");
  const std::string before = file_bytes(path);
  auto ws = Workspace::open(dir.path());
  ASSERT_FALSE(ws.ok());
  EXPECT_EQ(ws.error().message, "workspace schema version 99 is newer than this headway (" +
                                    std::to_string(latest_schema_version()) + "); upgrade headway");
  EXPECT_EQ(file_bytes(path), before);
  EXPECT_FALSE(Workspace::find(dir.path()).ok());
  EXPECT_EQ(file_bytes(path), before);
}

TEST(StoreWorkspace, CorruptFileIsRefusedAndLeftByteIdentical) {
  TestTempDir dir;
  ASSERT_TRUE(Workspace::create(dir.path()).ok());
  const fs::path path = Workspace::database_path(dir.path());
  std::string garbage;
  for (int i = 0; i < 400; ++i) garbage += "this is not a database\n";
  std::ofstream(path, std::ios::binary | std::ios::trunc) << garbage;
  auto ws = Workspace::open(dir.path());
  ASSERT_FALSE(ws.ok());
  EXPECT_TRUE(contains(ws.error().message, "unreadable")) << ws.error().message;
  EXPECT_TRUE(contains(ws.error().message, "not a database")) << ws.error().message;
  EXPECT_EQ(ws.error().code, ErrorCode::kDatabase);
  EXPECT_EQ(file_bytes(path), garbage);
}

TEST(StoreWorkspace, ForeignSqliteDatabaseIsRefusedUnchanged) {
  TestTempDir dir;
  const fs::path path = Workspace::database_path(dir.path());
  fs::create_directories(path.parent_path());
  raw_exec(path, "CREATE TABLE photos(id INTEGER); INSERT INTO photos VALUES (1)");
  const std::string before = file_bytes(path);
  auto ws = Workspace::open(dir.path());
  ASSERT_FALSE(ws.ok());
  EXPECT_TRUE(contains(ws.error().message, "not a headway workspace")) << ws.error().message;
  EXPECT_EQ(ws.error().code, ErrorCode::kDatabase);
  EXPECT_EQ(file_bytes(path), before);
}

TEST(StoreWorkspace, VersionZeroDatabaseIsMigratedOnOpen) {
  // A v0 workspace: the marker database exists but holds no schema (user_version 0), as an
  // init killed before its first schema step committed leaves it.
  TestTempDir dir;
  const fs::path path = Workspace::database_path(dir.path());
  fs::create_directories(path.parent_path());
  raw_exec(path, "CREATE TABLE scratch(a); DROP TABLE scratch; PRAGMA user_version = 0");
  ASSERT_GT(fs::file_size(path), 0u);
  {
    Database raw = Database::open(path, false).value();
    ASSERT_EQ(schema_version(raw), 0);
  }
  auto ws = Workspace::open(dir.path());
  ASSERT_TRUE(ws.ok()) << ws.error().message;
  EXPECT_EQ(ws->schema_version(), latest_schema_version());
  EXPECT_GT(ws->schema_version(), 0);
  EXPECT_EQ(ws->db().query_int64("SELECT count(*) FROM kernels"), 0);
}

TEST(StoreWorkspace, MetaRoundTripsAndIsSharedBetweenConnections) {
  TestTempDir dir;
  auto a = Workspace::create(dir.path());
  ASSERT_TRUE(a.ok());
  EXPECT_EQ(a->meta("toolchain"), std::nullopt);
  a->set_meta("toolchain", "g++ 12.2");
  a->set_meta("toolchain", "g++ 12.3");
  auto b = Workspace::open(dir.path());
  ASSERT_TRUE(b.ok());
  EXPECT_EQ(b->meta("toolchain"), "g++ 12.3");
}

TEST(StoreWorkspace, ForeignKeysAreEnforced) {
  TestTempDir dir;
  auto ws = Workspace::create(dir.path());
  ASSERT_TRUE(ws.ok());
  EXPECT_THROW(ws->db().exec("INSERT INTO heads(kernel, node_id) VALUES ('nope', 1)"), StoreError);
}

}  // namespace
}  // namespace headway::store
