#include "store/transaction.h"

#include <gtest/gtest.h>

#include "store/test_temp_dir.h"

namespace headway::store {
namespace {

class StoreTransaction : public ::testing::Test {
 protected:
  void SetUp() override {
    db_.exec("PRAGMA journal_mode = WAL; CREATE TABLE t(v INTEGER)");
  }
  int64_t count() { return db_.query_int64("SELECT count(*) FROM t"); }

  TestTempDir dir_;
  Database db_ = Database::open(dir_.path() / "t.db", true).value();
};

TEST_F(StoreTransaction, CommitKeepsChanges) {
  {
    Transaction txn(db_);
    EXPECT_FALSE(txn.nested());
    db_.exec("INSERT INTO t VALUES (1)");
    txn.commit();
  }
  EXPECT_FALSE(db_.in_transaction());
  EXPECT_EQ(count(), 1);
}

TEST_F(StoreTransaction, DestructionWithoutCommitRollsBack) {
  {
    Transaction txn(db_);
    db_.exec("INSERT INTO t VALUES (1)");
    EXPECT_TRUE(db_.in_transaction());
  }
  EXPECT_FALSE(db_.in_transaction());
  EXPECT_EQ(count(), 0);
}

TEST_F(StoreTransaction, ExceptionRollsBack) {
  try {
    Transaction txn(db_);
    db_.exec("INSERT INTO t VALUES (1)");
    db_.exec("INSERT INTO no_such_table VALUES (1)");
    txn.commit();
  } catch (const StoreError&) {
  }
  EXPECT_EQ(count(), 0);
}

TEST_F(StoreTransaction, NestedRollbackKeepsOuterWork) {
  Transaction outer(db_);
  db_.exec("INSERT INTO t VALUES (1)");
  {
    Transaction inner(db_);
    EXPECT_TRUE(inner.nested());
    db_.exec("INSERT INTO t VALUES (2)");
  }
  {
    Transaction inner(db_);
    db_.exec("INSERT INTO t VALUES (3)");
    inner.commit();
  }
  EXPECT_TRUE(db_.in_transaction());
  outer.commit();
  EXPECT_EQ(db_.query_int64("SELECT group_concat(v) = '1,3' FROM (SELECT v FROM t ORDER BY v)"), 1);
}

TEST_F(StoreTransaction, OuterRollbackDiscardsCommittedInner) {
  {
    Transaction outer(db_);
    Transaction inner(db_);
    db_.exec("INSERT INTO t VALUES (1)");
    inner.commit();
  }
  EXPECT_EQ(count(), 0);
}

TEST_F(StoreTransaction, UncommittedWorkInvisibleToOtherConnections) {
  Database other = Database::open(dir_.path() / "t.db", false).value();
  Transaction txn(db_);
  db_.exec("INSERT INTO t VALUES (1)");
  EXPECT_EQ(other.query_int64("SELECT count(*) FROM t"), 0);
  txn.commit();
  EXPECT_EQ(other.query_int64("SELECT count(*) FROM t"), 1);
}

TEST_F(StoreTransaction, SecondCommitIsABug) {
  Transaction txn(db_);
  txn.commit();
  EXPECT_THROW(txn.commit(), std::logic_error);
}

}  // namespace
}  // namespace headway::store
