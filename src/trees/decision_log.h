#pragma once
// The acceptance tests of one kernel's Design Tree: each test pits a candidate node against the
// head of the moment, collects paired readings, and ends with one outcome.
//
// Crash safety: a reading is stored at most once per (test, pair, position) — a UNIQUE index
// enforces it — and a test's outcome, the candidate's new status and (for FASTER) the new head
// are written in one transaction. A test left unfinished by a killed run is discarded with its
// readings by abandon_unfinished_tests(), so it is neither half-counted nor counted twice.
#include <cstdint>
#include <map>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "statistics/outcome.h"
#include "trees/design_tree.h"

namespace headway::trees {

struct TestRecord {
  int64_t id = 0;
  std::string kernel;
  int64_t head_node = 0;  // the head when the test began
  int64_t candidate_node = 0;
  std::string rule;                            // the decision rule that decides it, e.g. "betting"
  std::optional<statistics::Outcome> outcome;  // nullopt until finished
  int64_t pairs = 0;
  std::optional<double> effect_pct;  // candidate vs head, percent time saved (> 0: faster)
  std::optional<double> ci_low;
  std::optional<double> ci_high;
  std::string note;
  std::string started_at;
  std::optional<std::string> finished_at;
};

struct TestReading {
  int64_t node_id = 0;   // the head or the candidate of the test
  int pair_index = 0;    // 0-based pair within the test
  int position = 0;      // 0: ran first in its pair, 1: ran second
  int64_t start_ns = 0;  // device clock when the run started
  double seconds = 0.0;
  nlohmann::json clock;  // whatever clock information the target reports; null when none
};

struct TestDecision {
  statistics::Outcome outcome = statistics::Outcome::kInconclusive;
  int64_t pairs = 0;
  std::optional<double> effect_pct;
  std::optional<double> ci_low;
  std::optional<double> ci_high;
  std::string note;
  // The decision rule's settings (for betting: s0, alpha, alpha_e, delta_e, cap), kept in the
  // candidate's evidence as "rule_config" so its wealth can be replayed from the readings; null:
  // not kept.
  nlohmann::json rule_config;
  // The workspace's device seconds at the decision, stored with the head a FASTER makes
  // (HeadRecord::device_seconds); nullopt: not stored.
  std::optional<double> device_seconds;
};

struct TestCounts {
  std::map<statistics::Outcome, int64_t> by_outcome;  // every outcome present, most with 0
  int64_t unfinished = 0;
};

// The candidate status an outcome leads to: FASTER accepted, SLOWER slower, SAME same,
// INCONCLUSIVE inconclusive.
NodeStatus status_after(statistics::Outcome outcome);

class DecisionLog {
 public:
  // The tree must outlive the log.
  explicit DecisionLog(DesignTree& tree) : tree_(&tree) {}

  // Starts a test of candidate against the current head and returns its id. An error when the
  // candidate is unknown, is the head, or is not testable (proposed or inconclusive).
  Result<int64_t> begin_test(int64_t candidate, std::string_view rule);
  // Stores one reading of an unfinished test. An error, storing nothing, when the test is unknown
  // or finished, the node is neither its head nor its candidate, position is not 0 or 1,
  // pair_index is negative, seconds is negative or not finite, or the test already has a reading
  // at this (pair_index, position).
  Status record_reading(int64_t test_id, const TestReading& reading);
  // In one transaction: writes the decision, moves the candidate to status_after(outcome) with a
  // reason and evidence naming the test, and for FASTER makes it the head, with the median of its
  // readings in this test at the kernel's first shape set (in ms) as the head's time (where a
  // test drew none there, the old head's time less the decision's effect). An error, changing
  // nothing, when the test is unknown or finished, pairs is negative, the candidate can no longer
  // take that status, or (FASTER) the head has changed since the test began.
  Result<TestRecord> finish_test(int64_t test_id, const TestDecision& decision);
  // Deletes every unfinished test of this kernel with its readings; returns how many tests.
  // Call when resuming, while no other process runs tests on this kernel.
  int64_t abandon_unfinished_tests();
  // Deletes one unfinished test with its readings (a test that lost its device or whose
  // candidate broke a rule: it has no outcome to count). An error, changing nothing, when the
  // test is unknown or finished.
  Status abandon_test(int64_t test_id);

  std::optional<TestRecord> test(int64_t id) const;
  std::vector<TestRecord> tests() const;                     // by id
  std::vector<TestReading> readings(int64_t test_id) const;  // by pair, then position
  TestCounts counts() const;

 private:
  std::optional<double> new_head_ms(const TestRecord& test, const TestDecision& decision);

  DesignTree* tree_;
};

}  // namespace headway::trees
