#pragma once
// The workspace schema, as an ordered list of migrations. A database's version is its
// PRAGMA user_version: 0 for an empty file, N once migrations 1..N have been applied. Every
// headway database also carries kApplicationId in PRAGMA application_id (set by migration 1).
#include <cstdint>
#include <span>
#include <string_view>

#include "common/result.h"
#include "store/database.h"

namespace headway::store {

inline constexpr int64_t kApplicationId = 0x68647779;  // "hdwy"

struct Migration {
  int64_t version;               // 1, 2, ... in order, no gaps
  std::string_view description;  // one line, for error messages
  std::string_view sql;          // statements that take version-1 to version
};

// The migrations this headway knows, oldest first.
std::span<const Migration> schema_migrations();
// The version this headway writes: the last migration's version.
int64_t latest_schema_version();

// PRAGMA user_version of db.
int64_t schema_version(Database& db);

// Brings db up to the last version of `migrations` in one transaction: it takes the write lock,
// re-reads the version (another process may have migrated meanwhile), applies every newer
// migration in order and sets user_version. Returns the version reached. On any failure nothing
// changes and the error names the failing migration. An error, changing nothing, when the
// database is newer than the last migration. Requires: migrations numbered 1..N without gaps
// (std::logic_error otherwise); db not inside a transaction.
Result<int64_t> migrate(Database& db, std::span<const Migration> migrations = schema_migrations());

}  // namespace headway::store
