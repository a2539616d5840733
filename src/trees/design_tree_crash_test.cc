// A writer killed with SIGKILL at random moments must leave a workspace that reopens intact:
// the database passes its integrity checks, every head is an accepted node, the head history and
// the finished tests agree, an unfinished test can be discarded cleanly, and every artifact is
// whole.
#include <fmt/format.h>
#include <gtest/gtest.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <random>
#include <thread>

#include "store/sha256.h"
#include "store/test_temp_dir.h"
#include "trees/decision_log.h"

namespace headway::trees {
namespace {

namespace fs = std::filesystem;
using statistics::Outcome;

// Runs in the child until killed; exits with 3 when the store reports an error, 4 on exception.
[[noreturn]] void write_forever(const fs::path& dir, int round, int ready_fd) {
  try {
    auto ws = store::Workspace::open(dir);
    if (!ws) _exit(3);
    auto tree = DesignTree::open(*ws, "qkv");
    if (!tree) _exit(3);
    DecisionLog log(*tree);
    log.abandon_unfinished_tests();
    std::mt19937_64 rng(static_cast<uint64_t>(round) * 7919u + 1);
    for (int i = 0;; ++i) {
      NewNode n;
      n.kind = NodeKind::kDesign;
      n.design = fmt::format("d{}-{}", round, i);
      n.params = {{"round", round}, {"i", i}};
      n.source = fmt::format("// round {} node {}\n{}\n", round, i, std::string(rng() % 4096, 'x'));
      auto added = tree->add(n);
      if (!added || added->duplicate) _exit(3);
      if (i == 0) {  // ready once a node is stored: every round makes progress, however loaded
        const char ready = 'r';
        if (write(ready_fd, &ready, 1) != 1) _exit(4);
        close(ready_fd);
      }
      const int64_t id = added->node.id;
      switch (rng() % 4) {
        case 0:
          if (!tree->set_status(id, NodeStatus::kBuildFailed, "error: nope")) _exit(3);
          break;
        case 1:
          if (!tree->set_head(id, 1.0, std::nullopt, "direct")) _exit(3);
          break;
        default: {
          auto test = log.begin_test(id, "betting");
          if (!test) _exit(3);
          const int pairs = 1 + static_cast<int>(rng() % 6);
          const int64_t head = tree->head().node_id;
          for (int p = 0; p < pairs; ++p) {
            for (int pos = 0; pos < 2; ++pos) {
              TestReading r;
              r.node_id = (pos == p % 2) ? head : id;
              r.pair_index = p;
              r.position = pos;
              r.seconds = 0.001 * static_cast<double>(1 + rng() % 3);
              if (!log.record_reading(*test, r)) _exit(3);
            }
          }
          TestDecision d;
          d.outcome = statistics::kAllOutcomes[rng() % statistics::kAllOutcomes.size()];
          d.pairs = pairs;
          if (!log.finish_test(*test, d)) _exit(3);
        }
      }
    }
  } catch (...) {
    _exit(4);
  }
}

struct Snapshot {
  int64_t nodes = 0;
  int64_t heads = 0;
};

// Checks every invariant the store promises after a crash; returns what it counted.
Snapshot check_consistent(const fs::path& dir) {
  Snapshot snap;
  auto ws = store::Workspace::open(dir);
  EXPECT_TRUE(ws.ok()) << ws.error().message;
  if (!ws) return snap;
  store::Database& db = ws->db();
  EXPECT_EQ(db.query_text("PRAGMA integrity_check"), "ok");
  EXPECT_FALSE(db.prepare("PRAGMA foreign_key_check").step()) << "dangling reference";

  auto tree = DesignTree::open(*ws, "qkv").value();
  DecisionLog log(tree);
  const auto history = tree.head_history();
  EXPECT_FALSE(history.empty());
  for (size_t i = 0; i < history.size(); ++i) {
    const auto node = tree.node(history[i].node_id);
    EXPECT_TRUE(node && node->status == NodeStatus::kAccepted) << "head #" << history[i].node_id;
    if (i > 0) {
      EXPECT_GT(history[i].seq, history[i - 1].seq);
    }
  }
  EXPECT_EQ(tree.head().seq, history.back().seq);

  std::map<int64_t, int> head_rows;
  for (const auto& h : history) ++head_rows[h.node_id];
  const auto nodes = tree.nodes();
  for (const Node& n : nodes) {
    if (n.status == NodeStatus::kAccepted) {
      EXPECT_EQ(head_rows.count(n.id), 1u) << "accepted node #" << n.id << " never became head";
    }
    const auto text = ws->artifacts().get(n.source_hash);
    EXPECT_TRUE(text && store::sha256_hex(*text) == n.source_hash) << "artifact of #" << n.id;
  }

  int64_t unfinished = 0;
  for (const TestRecord& t : log.tests()) {
    const auto readings = log.readings(t.id);
    if (!t.outcome) {
      ++unfinished;
      continue;
    }
    EXPECT_EQ(static_cast<int64_t>(readings.size()), 2 * t.pairs) << "test #" << t.id;
    EXPECT_EQ(tree.node(t.candidate_node)->status, status_after(*t.outcome)) << "test #" << t.id;
    int made_head = 0;
    for (const auto& h : history) {
      if (h.test_id == t.id) {
        ++made_head;
        EXPECT_EQ(h.node_id, t.candidate_node);
      }
    }
    EXPECT_EQ(made_head, *t.outcome == Outcome::kFaster ? 1 : 0) << "test #" << t.id;
  }
  EXPECT_LE(unfinished, 1);
  EXPECT_EQ(log.abandon_unfinished_tests(), unfinished);
  EXPECT_EQ(db.query_int64("SELECT count(*) FROM readings WHERE test_id IS NOT NULL AND test_id "
                           "NOT IN (SELECT id FROM tests WHERE outcome IS NOT NULL)"),
            0);

  for (const auto& entry : fs::recursive_directory_iterator(ws->artifacts().root())) {
    if (!entry.is_regular_file()) continue;
    const std::string name = entry.path().filename().string();
    if (name.rfind(".tmp-", 0) == 0) continue;  // a write cut short, never renamed into place
    EXPECT_EQ(store::sha256_hex(ws->artifacts().get(name).value_or("")), name) << entry.path();
  }
  snap.nodes = static_cast<int64_t>(nodes.size());
  snap.heads = static_cast<int64_t>(history.size());
  return snap;
}

TEST(TreeCrash, KilledWriterLeavesAConsistentWorkspace) {
  store::TestTempDir dir;
  {
    auto ws = store::Workspace::create(dir.path()).value();
    ASSERT_TRUE(
        DesignTree::create(ws, KernelRecord{"qkv", "cpu", {}, {}, ""}, "// baseline\n").ok());
  }
  std::mt19937_64 rng(std::random_device{}());
  Snapshot before = check_consistent(dir.path());
  for (int round = 0; round < 5; ++round) {
    int ready[2];
    ASSERT_EQ(pipe(ready), 0);
    const pid_t pid = fork();
    ASSERT_GE(pid, 0);
    if (pid == 0) {
      close(ready[0]);
      write_forever(dir.path(), round, ready[1]);
    }
    close(ready[1]);
    char byte = 0;
    const bool started = read(ready[0], &byte, 1) == 1;
    close(ready[0]);
    if (started) {
      std::this_thread::sleep_for(std::chrono::milliseconds(40 + rng() % 160));
    }
    kill(pid, SIGKILL);
    int status = 0;
    ASSERT_EQ(waitpid(pid, &status, 0), pid);
    ASSERT_TRUE(started) << "the writer did not start";
    ASSERT_TRUE(WIFSIGNALED(status) && WTERMSIG(status) == SIGKILL)
        << "the writer stopped by itself with exit code " << WEXITSTATUS(status);
    const Snapshot after = check_consistent(dir.path());
    if (HasFailure()) FAIL() << "inconsistent after round " << round;
    EXPECT_GT(after.nodes, before.nodes) << "round " << round << " made no progress";
    EXPECT_GE(after.heads, before.heads);
    before = after;
  }
}

}  // namespace
}  // namespace headway::trees
