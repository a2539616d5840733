#include "store/transaction.h"

#include <fmt/format.h>

#include <atomic>
#include <stdexcept>

namespace headway::store {

namespace {
std::atomic<uint64_t> next_savepoint{0};
}

Transaction::Transaction(Database& db) : db_(db) {
  if (db_.in_transaction()) {
    savepoint_ = fmt::format("headway_sp_{}", next_savepoint.fetch_add(1));
    db_.exec("SAVEPOINT " + savepoint_);
  } else {
    db_.exec("BEGIN IMMEDIATE");
  }
}

Transaction::~Transaction() {
  if (done_) return;
  try {
    if (!db_.in_transaction()) return;  // SQLite already rolled back after an error
    if (nested()) {
      db_.exec(fmt::format("ROLLBACK TO {0}; RELEASE {0}", savepoint_));
    } else {
      db_.exec("ROLLBACK");
    }
  } catch (const StoreError&) {
    // A failed rollback leaves SQLite to roll back when the connection closes.
  }
}

void Transaction::commit() {
  if (done_) throw std::logic_error("Transaction::commit called twice");
  db_.exec(nested() ? "RELEASE " + savepoint_ : std::string("COMMIT"));
  done_ = true;
}

}  // namespace headway::store
