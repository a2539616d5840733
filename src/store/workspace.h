#pragma once
// A headway workspace: a directory DIR holding DIR/.headway/headway.db (one SQLite database,
// the marker that makes DIR a workspace) and DIR/.headway/artifacts/ (content-addressed files).
//
// The database runs in WAL mode with foreign keys on, synchronous=NORMAL and a busy timeout, so
// several headway processes may use one workspace; every state change is a Transaction.
// Opening refuses, changing nothing on disk, a database written by a newer headway, a file that
// is not a SQLite database, and a SQLite database that is not a headway workspace. An older
// schema is upgraded in place (see schema.h). Creating or opening records this headway build
// in the workspace (headway_versions.h).
#include <cstdint>
#include <filesystem>
#include <optional>
#include <string>
#include <string_view>

#include "common/result.h"
#include "store/artifacts.h"
#include "store/database.h"

namespace headway::store {

class Workspace {
 public:
  static std::filesystem::path database_path(const std::filesystem::path& dir);

  // Makes dir (and parents) a new workspace. An error when dir already is one (its
  // .headway/headway.db exists) or cannot be created. A workspace inside another is allowed.
  static Result<Workspace> create(const std::filesystem::path& dir);
  // Opens the workspace whose root is exactly dir.
  static Result<Workspace> open(const std::filesystem::path& dir);
  // The nearest directory, from start up to the filesystem root, that is a workspace.
  static std::optional<std::filesystem::path> locate(const std::filesystem::path& start);
  // open(locate(start)); an error naming start when no directory up from it is a workspace.
  static Result<Workspace> find(const std::filesystem::path& start);

  // The workspace directory DIR, absolute.
  const std::filesystem::path& root() const { return root_; }
  Database& db() { return db_; }
  const ArtifactStore& artifacts() const { return artifacts_; }
  int64_t schema_version();

  // Free-form settings (toolchain id, ...). meta() is nullopt for a key never set.
  std::optional<std::string> meta(std::string_view key);
  void set_meta(std::string_view key, std::string_view value);

 private:
  Workspace(std::filesystem::path root, Database db);
  static Result<Workspace> open_database(const std::filesystem::path& root, bool created);

  std::filesystem::path root_;
  Database db_;
  ArtifactStore artifacts_;
};

}  // namespace headway::store
