#pragma once
// RAII write transaction. The outermost Transaction on a connection runs BEGIN IMMEDIATE (it takes
// the write lock at once, so two processes never both read-then-write on stale data); a
// Transaction opened while another is active on the same connection is a SAVEPOINT inside it.
// commit() makes the changes durable (or, nested, folds them into the enclosing transaction);
// destruction without commit() rolls back everything done since construction.
#include <cstdint>
#include <string>

#include "store/database.h"

namespace headway::store {

class Transaction {
 public:
  explicit Transaction(Database& db);
  Transaction(const Transaction&) = delete;
  Transaction& operator=(const Transaction&) = delete;
  ~Transaction();

  // Requires: not yet committed (a second commit is a bug, std::logic_error). Throws StoreError
  // when SQLite cannot commit; the destructor then rolls back.
  void commit();
  bool nested() const { return !savepoint_.empty(); }

 private:
  Database& db_;
  std::string savepoint_;  // empty for the outermost transaction
  bool done_ = false;
};

}  // namespace headway::store
