#include "store/workspace.h"

#include <fcntl.h>
#include <fmt/format.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

#include "common/build_info.h"
#include "store/headway_versions.h"
#include "store/schema.h"

namespace headway::store {

namespace fs = std::filesystem;

namespace {

fs::path absolute_dir(const fs::path& dir) {
  std::error_code ec;
  fs::path abs = fs::absolute(dir, ec);
  if (ec) abs = dir;
  fs::path canonical = fs::weakly_canonical(abs, ec);
  return ec ? abs.lexically_normal() : canonical;
}

bool is_workspace(const fs::path& dir) {
  std::error_code ec;
  return fs::exists(Workspace::database_path(dir), ec);
}

}  // namespace

fs::path Workspace::database_path(const fs::path& dir) { return dir / ".headway" / "headway.db"; }

Workspace::Workspace(fs::path root, Database db)
    : root_(std::move(root)), db_(std::move(db)), artifacts_(root_ / ".headway" / "artifacts") {}

Result<Workspace> Workspace::create(const fs::path& dir) {
  const fs::path root = absolute_dir(dir);
  const fs::path path = database_path(root);
  if (is_workspace(root)) {
    return conflict(fmt::format("a headway workspace already exists at {}", root.string()));
  }
  std::error_code ec;
  fs::create_directories(root / ".headway" / "artifacts", ec);
  if (ec)
    return database_error(
        fmt::format("cannot create workspace at {}: {}", root.string(), ec.message()));
  const int fd = ::open(path.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0644);
  if (fd < 0) {
    if (errno == EEXIST) {
      return conflict(fmt::format("a headway workspace already exists at {}", root.string()));
    }
    return database_error(fmt::format("cannot create {}: {}", path.string(), std::strerror(errno)));
  }
  ::close(fd);
  return open_database(root, /*created=*/true);
}

Result<Workspace> Workspace::open(const fs::path& dir) {
  const fs::path root = absolute_dir(dir);
  if (!is_workspace(root)) {
    return not_found(fmt::format("no headway workspace at {} (run 'headway init')", root.string()));
  }
  return open_database(root, /*created=*/false);
}

std::optional<fs::path> Workspace::locate(const fs::path& start) {
  fs::path dir = absolute_dir(start);
  while (true) {
    if (is_workspace(dir)) return dir;
    fs::path parent = dir.parent_path();
    if (parent == dir || parent.empty()) return std::nullopt;
    dir = std::move(parent);
  }
}

Result<Workspace> Workspace::find(const fs::path& start) {
  if (auto dir = locate(start)) return open(*dir);
  return not_found(
      fmt::format("no headway workspace in {} or any parent directory (run 'headway init')",
                  absolute_dir(start).string()));
}

Result<Workspace> Workspace::open_database(const fs::path& root, bool created) {
  const fs::path path = database_path(root);
  auto opened = Database::open(path, /*create=*/false);
  if (!opened) return opened.error();
  Database db = std::move(opened).value();

  int64_t application_id = 0;
  int64_t version = 0;
  int64_t objects = 0;
  try {
    application_id = db.query_int64("PRAGMA application_id");
    version = db.query_int64("PRAGMA user_version");
    objects = db.query_int64("SELECT count(*) FROM sqlite_schema");
  } catch (const StoreError& e) {
    return database_error(fmt::format("workspace database {} is unreadable: {}", path.string(),
                                      sqlite3_errstr(e.code())));
  }
  const int64_t latest = latest_schema_version();
  if (version > latest) {
    return database_error(
        fmt::format("workspace schema version {} is newer than this headway ({}); "
                    "upgrade headway",
                    version, latest));
  }
  const bool empty = application_id == 0 && version == 0 && objects == 0;
  if (application_id != kApplicationId && !empty) {
    return database_error(
        fmt::format("{} is a SQLite database but not a headway workspace", path.string()));
  }

  try {
    const std::string mode = db.query_text("PRAGMA journal_mode = WAL");
    if (mode != "wal") {
      return database_error(fmt::format(
          "workspace database {} cannot use WAL mode (journal mode {})", path.string(), mode));
    }
    db.exec("PRAGMA synchronous = NORMAL; PRAGMA foreign_keys = ON");
  } catch (const StoreError& e) {
    return database_error(
        fmt::format("cannot configure workspace database {}: {}", path.string(), e.what()));
  }
  if (auto migrated = upgrade_schema(db); !migrated) {
    return Error{migrated.error().code,
                 fmt::format("cannot upgrade the schema of workspace database {}: {}",
                             path.string(), migrated.error().message)};
  }
  try {
    record_headway_version(db, build_info(), created);
  } catch (const StoreError& e) {
    return database_error(
        fmt::format("cannot record this headway's version in {}: {}", path.string(), e.what()));
  }
  return Workspace(root, std::move(db));
}

int64_t Workspace::schema_version() { return store::schema_version(db_); }

std::optional<std::string> Workspace::meta(std::string_view key) {
  Statement s = db_.prepare("SELECT value FROM meta WHERE key = ?1");
  s.bind(1, key);
  if (!s.step()) return std::nullopt;
  return s.text(0);
}

void Workspace::set_meta(std::string_view key, std::string_view value) {
  Statement s = db_.prepare(
      "INSERT INTO meta(key, value) VALUES (?1, ?2) "
      "ON CONFLICT(key) DO UPDATE SET value = excluded.value");
  s.bind(1, key).bind(2, value).run();
}

}  // namespace headway::store
