#pragma once
// A thin owner of one SQLite connection and its prepared statements.
//
// Failures a caller is expected to handle (the file cannot be opened) come back as a Result.
// Once open, a failing statement means a bug (bad SQL, a violated constraint the caller should
// have prevented) or a broken environment (disk full, I/O error, a lock held past the busy
// timeout); both throw StoreError, which carries the SQLite result code.
// A connection (and its statements) is used by one thread at a time.
#include <sqlite3.h>

#include <cstdint>
#include <filesystem>
#include <optional>
#include <stdexcept>
#include <string>
#include <string_view>

#include "common/result.h"

namespace headway::store {

class StoreError : public std::runtime_error {
 public:
  StoreError(int code, const std::string& message) : std::runtime_error(message), code_(code) {}
  // The extended SQLite result code, e.g. SQLITE_CONSTRAINT_UNIQUE.
  int code() const { return code_; }

 private:
  int code_;
};

// One prepared statement. Parameters are 1-based, columns 0-based (as in SQLite). Owned by the
// caller; must not outlive the Database that prepared it.
class Statement {
 public:
  Statement(sqlite3* db, std::string_view sql);
  Statement(Statement&& other) noexcept;
  Statement& operator=(Statement&&) = delete;
  Statement(const Statement&) = delete;
  ~Statement();

  Statement& bind(int index, int value);
  Statement& bind(int index, int64_t value);
  Statement& bind(int index, double value);
  Statement& bind(int index, std::string_view text);
  Statement& bind(int index, const char* text) { return bind(index, std::string_view(text)); }
  Statement& bind(int index, const std::string& text) {
    return bind(index, std::string_view(text));
  }
  Statement& bind(int index, std::nullopt_t);
  template <class T>
  Statement& bind(int index, const std::optional<T>& value) {
    return value ? bind(index, *value) : bind(index, std::nullopt);
  }

  // Advances: true when a row is ready, false when the statement is done. Throws StoreError on
  // any other result.
  bool step();
  // Advances and returns SQLite's extended result code unchanged (SQLITE_ROW, SQLITE_DONE, or an
  // error), for callers that turn a specific error such as a UNIQUE violation into a Result.
  int try_step();
  // Steps to completion, ignoring any rows.
  void run();
  // Rewinds so the statement can run again; bindings are kept.
  void reset();

  bool is_null(int column) const;
  int64_t int64(int column) const;
  double real(int column) const;
  std::string text(int column) const;
  std::optional<int64_t> optional_int64(int column) const;
  std::optional<double> optional_real(int column) const;
  std::optional<std::string> optional_text(int column) const;

 private:
  void check_bind(int rc, int index);

  sqlite3* db_;
  sqlite3_stmt* stmt_ = nullptr;
};

class Database {
 public:
  // Opens the database file at path, read-write; with create, a missing file is created. Sets
  // a busy timeout so that concurrent writers wait for each other instead of failing at once.
  // No pragma that writes to the file runs here.
  static Result<Database> open(const std::filesystem::path& path, bool create);

  Database(Database&& other) noexcept;
  Database& operator=(Database&& other) noexcept;
  Database(const Database&) = delete;
  ~Database();

  // Runs one or more statements without results.
  void exec(std::string_view sql);
  Statement prepare(std::string_view sql);
  // The single value of a one-row, one-column query; throws StoreError when there is no row.
  int64_t query_int64(std::string_view sql);
  std::string query_text(std::string_view sql);

  int64_t last_insert_rowid() const;
  int64_t changes() const;
  // True while a transaction (explicit BEGIN) is open on this connection.
  bool in_transaction() const;
  const std::filesystem::path& path() const { return path_; }
  sqlite3* handle() const { return db_; }

 private:
  Database(sqlite3* db, std::filesystem::path path) : db_(db), path_(std::move(path)) {}

  sqlite3* db_ = nullptr;
  std::filesystem::path path_;
};

// Throws StoreError describing rc (and the connection's last message) when rc is an error.
[[noreturn]] void throw_sqlite_error(sqlite3* db, int rc, std::string_view what);

}  // namespace headway::store
