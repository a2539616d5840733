#pragma once
// The workspace schema, as an ordered list of steps. A database's version is its PRAGMA
// user_version: 0 for an empty file, N once steps 1..N have been applied. Every headway database
// also carries kApplicationId in PRAGMA application_id (set by step 1). (A toolchain migration,
// knowledge/migration.h, is another thing.)
#include <cstdint>
#include <span>
#include <string_view>

#include "common/result.h"
#include "store/database.h"

namespace headway::store {

inline constexpr int64_t kApplicationId = 0x68647779;  // "hdwy"

struct SchemaStep {
  int64_t version;               // 1, 2, ... in order, no gaps
  std::string_view description;  // one line, for error messages
  std::string_view sql;          // statements that take version-1 to version
};

// The schema steps this headway knows, oldest first.
std::span<const SchemaStep> schema_steps();
// The version this headway writes: the last step's version.
int64_t latest_schema_version();

// PRAGMA user_version of db.
int64_t schema_version(Database& db);

// Brings db up to the last version of `steps` in one transaction: it takes the write lock,
// re-reads the version (another process may have upgraded it meanwhile), applies every newer step
// in order and sets user_version. Returns the version reached. On any failure nothing changes and
// the error names the failing step. An error, changing nothing, when the database is newer than
// the last step. Requires: steps numbered 1..N without gaps (std::logic_error otherwise); db not
// inside a transaction.
Result<int64_t> upgrade_schema(Database& db, std::span<const SchemaStep> steps = schema_steps());

}  // namespace headway::store
