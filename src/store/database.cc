#include "store/database.h"

#include <fmt/format.h>

#include <utility>

namespace headway::store {

namespace {
constexpr int kBusyTimeoutMs = 10000;
}

void throw_sqlite_error(sqlite3* db, int rc, std::string_view what) {
  const char* detail = db != nullptr ? sqlite3_errmsg(db) : sqlite3_errstr(rc);
  throw StoreError(rc, fmt::format("{}: {} (sqlite code {})", what, detail, rc));
}

Statement::Statement(sqlite3* db, std::string_view sql) : db_(db) {
  const int rc = sqlite3_prepare_v2(db, sql.data(), static_cast<int>(sql.size()), &stmt_, nullptr);
  if (rc != SQLITE_OK) {
    sqlite3_finalize(stmt_);
    stmt_ = nullptr;
    throw_sqlite_error(db, rc, fmt::format("cannot prepare '{}'", sql));
  }
  if (stmt_ == nullptr) throw StoreError(SQLITE_MISUSE, fmt::format("empty statement '{}'", sql));
}

Statement::Statement(Statement&& other) noexcept
    : db_(other.db_), stmt_(std::exchange(other.stmt_, nullptr)) {}

Statement::~Statement() { sqlite3_finalize(stmt_); }

void Statement::check_bind(int rc, int index) {
  if (rc != SQLITE_OK) throw_sqlite_error(db_, rc, fmt::format("cannot bind parameter {}", index));
}

Statement& Statement::bind(int index, int value) {
  check_bind(sqlite3_bind_int(stmt_, index, value), index);
  return *this;
}

Statement& Statement::bind(int index, int64_t value) {
  check_bind(sqlite3_bind_int64(stmt_, index, value), index);
  return *this;
}

Statement& Statement::bind(int index, double value) {
  check_bind(sqlite3_bind_double(stmt_, index, value), index);
  return *this;
}

Statement& Statement::bind(int index, std::string_view text) {
  check_bind(
      sqlite3_bind_text64(stmt_, index, text.data(), text.size(), SQLITE_TRANSIENT, SQLITE_UTF8),
      index);
  return *this;
}

Statement& Statement::bind(int index, std::nullopt_t) {
  check_bind(sqlite3_bind_null(stmt_, index), index);
  return *this;
}

int Statement::try_step() { return sqlite3_step(stmt_); }

bool Statement::step() {
  const int rc = try_step();
  if (rc == SQLITE_ROW) return true;
  if (rc == SQLITE_DONE) return false;
  throw_sqlite_error(db_, rc, fmt::format("statement '{}' failed", sqlite3_sql(stmt_)));
}

void Statement::run() {
  while (step()) {
  }
}

void Statement::reset() { sqlite3_reset(stmt_); }

bool Statement::is_null(int column) const {
  return sqlite3_column_type(stmt_, column) == SQLITE_NULL;
}

int64_t Statement::int64(int column) const { return sqlite3_column_int64(stmt_, column); }

double Statement::real(int column) const { return sqlite3_column_double(stmt_, column); }

std::string Statement::text(int column) const {
  const auto* p = sqlite3_column_text(stmt_, column);
  if (p == nullptr) return {};
  return std::string(reinterpret_cast<const char*>(p),
                     static_cast<size_t>(sqlite3_column_bytes(stmt_, column)));
}

std::optional<int64_t> Statement::optional_int64(int column) const {
  if (is_null(column)) return std::nullopt;
  return int64(column);
}

std::optional<double> Statement::optional_real(int column) const {
  if (is_null(column)) return std::nullopt;
  return real(column);
}

std::optional<std::string> Statement::optional_text(int column) const {
  if (is_null(column)) return std::nullopt;
  return text(column);
}

Result<Database> Database::open(const std::filesystem::path& path, bool create) {
  sqlite3* db = nullptr;
  const int flags = SQLITE_OPEN_READWRITE | (create ? SQLITE_OPEN_CREATE : 0) | SQLITE_OPEN_NOMUTEX;
  const int rc = sqlite3_open_v2(path.c_str(), &db, flags, nullptr);
  if (rc != SQLITE_OK) {
    std::string message = fmt::format("cannot open database {}: {}", path.string(),
                                      db != nullptr ? sqlite3_errmsg(db) : sqlite3_errstr(rc));
    sqlite3_close(db);
    return database_error(std::move(message));
  }
  sqlite3_extended_result_codes(db, 1);
  sqlite3_busy_timeout(db, kBusyTimeoutMs);
  return Database(db, path);
}

Database::Database(Database&& other) noexcept
    : db_(std::exchange(other.db_, nullptr)), path_(std::move(other.path_)) {}

Database& Database::operator=(Database&& other) noexcept {
  if (this != &other) {
    sqlite3_close_v2(db_);
    db_ = std::exchange(other.db_, nullptr);
    path_ = std::move(other.path_);
  }
  return *this;
}

Database::~Database() { sqlite3_close_v2(db_); }

void Database::exec(std::string_view sql) {
  const std::string text(sql);
  char* message = nullptr;
  const int rc = sqlite3_exec(db_, text.c_str(), nullptr, nullptr, &message);
  if (rc != SQLITE_OK) {
    std::string detail = message != nullptr ? message : sqlite3_errstr(rc);
    sqlite3_free(message);
    throw StoreError(sqlite3_extended_errcode(db_),
                     fmt::format("'{}' failed: {} (sqlite code {})", text, detail, rc));
  }
}

Statement Database::prepare(std::string_view sql) { return Statement(db_, sql); }

int64_t Database::query_int64(std::string_view sql) {
  Statement s = prepare(sql);
  if (!s.step()) throw StoreError(SQLITE_ERROR, fmt::format("'{}' returned no row", sql));
  return s.int64(0);
}

std::string Database::query_text(std::string_view sql) {
  Statement s = prepare(sql);
  if (!s.step()) throw StoreError(SQLITE_ERROR, fmt::format("'{}' returned no row", sql));
  return s.text(0);
}

int64_t Database::last_insert_rowid() const { return sqlite3_last_insert_rowid(db_); }

int64_t Database::changes() const { return sqlite3_changes64(db_); }

bool Database::in_transaction() const { return sqlite3_get_autocommit(db_) == 0; }

}  // namespace headway::store
