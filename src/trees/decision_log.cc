#include "trees/decision_log.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <stdexcept>

#include "statistics/mixed_paired_device.h"
#include "store/transaction.h"

namespace headway::trees {

namespace {

using nlohmann::json;
using store::Statement;
using store::Transaction;

constexpr std::string_view kTestColumns =
    "id, kernel, head_node, candidate_node, rule, outcome, pairs, effect_pct, ci_low, ci_high, "
    "note, started_at, finished_at";

TestRecord read_test(const Statement& s) {
  TestRecord t;
  t.id = s.int64(0);
  t.kernel = s.text(1);
  t.head_node = s.int64(2);
  t.candidate_node = s.int64(3);
  t.rule = s.text(4);
  if (const auto outcome = s.optional_text(5)) {
    t.outcome = statistics::parse_outcome(*outcome);
    if (!t.outcome) throw std::logic_error(fmt::format("test {} has outcome '{}'", t.id, *outcome));
  }
  t.pairs = s.int64(6);
  t.effect_pct = s.optional_real(7);
  t.ci_low = s.optional_real(8);
  t.ci_high = s.optional_real(9);
  t.note = s.text(10);
  t.started_at = s.text(11);
  t.finished_at = s.optional_text(12);
  return t;
}

std::string describe(const TestRecord& t, const TestDecision& d) {
  std::string text =
      fmt::format("{} vs #{} in test #{} ({} pair{}", statistics::to_string(d.outcome), t.head_node,
                  t.id, d.pairs, d.pairs == 1 ? "" : "s");
  if (d.effect_pct) text += fmt::format(", effect {:+.2f}%", *d.effect_pct);
  if (d.ci_low && d.ci_high) text += fmt::format(" [{:+.2f}%, {:+.2f}%]", *d.ci_low, *d.ci_high);
  text += ")";
  if (!d.note.empty()) text += ": " + d.note;
  return text;
}

json or_null(const std::optional<double>& value) { return value ? json(*value) : json(nullptr); }

std::optional<double> median(std::vector<double> values) {
  if (values.empty()) return std::nullopt;
  std::sort(values.begin(), values.end());
  const size_t mid = values.size() / 2;
  return values.size() % 2 == 1 ? values[mid] : (values[mid - 1] + values[mid]) / 2.0;
}

}  // namespace

NodeStatus status_after(statistics::Outcome outcome) {
  switch (outcome) {
    case statistics::Outcome::kFaster:
      return NodeStatus::kAccepted;
    case statistics::Outcome::kSlower:
      return NodeStatus::kSlower;
    case statistics::Outcome::kSame:
      return NodeStatus::kSame;
    case statistics::Outcome::kInconclusive:
      return NodeStatus::kInconclusive;
  }
  throw std::logic_error("unknown outcome");
}

Result<int64_t> DecisionLog::begin_test(int64_t candidate, std::string_view rule) {
  store::Database& db = tree_->workspace().db();
  Transaction txn(db);
  const auto node = tree_->node(candidate);
  if (!node)
    return not_found(fmt::format("kernel '{}' has no node #{}", tree_->kernel(), candidate));
  const int64_t head = tree_->head().node_id;
  if (head == candidate)
    return invalid_input(
        fmt::format("node #{} is the head; it cannot be tested against itself", candidate));
  if (!testable(node->status)) {
    return invalid_input(
        fmt::format("node #{} is {}; only a proposed or inconclusive node can be tested", candidate,
                    to_string(node->status)));
  }
  db.prepare("INSERT INTO tests(kernel, head_node, candidate_node, rule) VALUES (?1, ?2, ?3, ?4)")
      .bind(1, tree_->kernel())
      .bind(2, head)
      .bind(3, candidate)
      .bind(4, rule)
      .run();
  const int64_t id = db.last_insert_rowid();
  txn.commit();
  return id;
}

Status DecisionLog::record_reading(int64_t test_id, const TestReading& r) {
  if (r.position != 0 && r.position != 1) {
    return invalid_input(fmt::format("reading position {} is not 0 or 1", r.position));
  }
  if (r.pair_index < 0)
    return invalid_input(fmt::format("pair index {} is negative", r.pair_index));
  if (!std::isfinite(r.seconds) || r.seconds < 0) {
    return invalid_input(fmt::format("reading of {} seconds is not a time", r.seconds));
  }
  store::Database& db = tree_->workspace().db();
  Transaction txn(db);
  const auto t = test(test_id);
  if (!t) return not_found(fmt::format("kernel '{}' has no test #{}", tree_->kernel(), test_id));
  if (t->outcome) return conflict(fmt::format("test #{} is already finished", test_id));
  if (r.node_id != t->head_node && r.node_id != t->candidate_node) {
    return invalid_input(
        fmt::format("node #{} is neither the head #{} nor the candidate #{} of test #{}", r.node_id,
                    t->head_node, t->candidate_node, test_id));
  }
  Statement insert = db.prepare(
      "INSERT INTO readings(test_id, kernel, node_id, pair_index, position, start_ns, seconds, "
      "clock_json) VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8)");
  insert.bind(1, test_id)
      .bind(2, tree_->kernel())
      .bind(3, r.node_id)
      .bind(4, r.pair_index)
      .bind(5, r.position)
      .bind(6, r.start_ns)
      .bind(7, r.seconds)
      .bind(8, r.clock.is_null() ? std::optional<std::string>() : r.clock.dump());
  const int rc = insert.try_step();
  if (rc == SQLITE_CONSTRAINT_UNIQUE) {
    return conflict(fmt::format("test #{} already has a reading for pair {} position {}", test_id,
                                r.pair_index, r.position));
  }
  if (rc != SQLITE_DONE) store::throw_sqlite_error(db.handle(), rc, "cannot store a reading");
  txn.commit();
  return {};
}

std::optional<double> DecisionLog::new_head_ms(const TestRecord& t, const TestDecision& d) {
  // The head's figure is the kernel's first shape set's, as its floor is: readings taken at
  // another (statistics::kShapeSetKey in their clock) are left out.
  std::vector<double> ms;
  for (const auto& r : readings(t.id)) {
    const bool first_shape_set =
        !r.clock.is_object() || r.clock.value(statistics::kShapeSetKey, int64_t{0}) == 0;
    if (r.node_id == t.candidate_node && first_shape_set) ms.push_back(r.seconds * 1e3);
  }
  if (auto m = median(std::move(ms))) return m;
  // No reading at the first shape set: the old head's figure less the time the test says is saved.
  const auto old = tree_->head().median_ms;
  if (old && d.effect_pct) return *old * (1.0 - *d.effect_pct / 100.0);
  return std::nullopt;
}

Result<TestRecord> DecisionLog::finish_test(int64_t test_id, const TestDecision& d) {
  if (d.pairs < 0) return invalid_input(fmt::format("pairs {} is negative", d.pairs));
  store::Database& db = tree_->workspace().db();
  Transaction txn(db);
  const auto t = test(test_id);
  if (!t) return not_found(fmt::format("kernel '{}' has no test #{}", tree_->kernel(), test_id));
  if (t->outcome) {
    return conflict(fmt::format("test #{} is already finished ({})", test_id,
                                statistics::to_string(*t->outcome)));
  }
  db.prepare(
        "UPDATE tests SET outcome = ?2, pairs = ?3, effect_pct = ?4, ci_low = ?5, ci_high = ?6, "
        "note = ?7, finished_at = strftime('%Y-%m-%dT%H:%M:%fZ', 'now') WHERE id = ?1")
      .bind(1, test_id)
      .bind(2, statistics::to_string(d.outcome))
      .bind(3, d.pairs)
      .bind(4, d.effect_pct)
      .bind(5, d.ci_low)
      .bind(6, d.ci_high)
      .bind(7, d.note)
      .run();
  const std::string reason = describe(*t, d);
  json evidence = {{"test_id", test_id},
                   {"outcome", statistics::to_string(d.outcome)},
                   {"rule", t->rule},
                   {"pairs", d.pairs},
                   {"head_node", t->head_node},
                   {"effect_pct", or_null(d.effect_pct)},
                   {"ci_low", or_null(d.ci_low)},
                   {"ci_high", or_null(d.ci_high)}};
  if (!d.rule_config.is_null()) evidence["rule_config"] = d.rule_config;
  if (d.outcome == statistics::Outcome::kFaster) {
    const int64_t head = tree_->head().node_id;
    if (head != t->head_node) {
      return invalid_input(
          fmt::format("the head of '{}' moved from #{} to #{} since test #{} began",
                      tree_->kernel(), t->head_node, head, test_id));
    }
    auto made = tree_->set_head(t->candidate_node, new_head_ms(*t, d), test_id, reason, evidence,
                                d.device_seconds);
    if (!made) return made.error();
  } else {
    auto moved = tree_->set_status(t->candidate_node, status_after(d.outcome), reason, evidence);
    if (!moved) return moved.error();
  }
  txn.commit();
  return *test(test_id);
}

int64_t DecisionLog::abandon_unfinished_tests() {
  store::Database& db = tree_->workspace().db();
  Transaction txn(db);
  db.prepare(
        "DELETE FROM readings WHERE test_id IN "
        "(SELECT id FROM tests WHERE kernel = ?1 AND outcome IS NULL)")
      .bind(1, tree_->kernel())
      .run();
  db.prepare("DELETE FROM tests WHERE kernel = ?1 AND outcome IS NULL")
      .bind(1, tree_->kernel())
      .run();
  const int64_t abandoned = db.changes();
  txn.commit();
  return abandoned;
}

Status DecisionLog::abandon_test(int64_t test_id) {
  store::Database& db = tree_->workspace().db();
  Transaction txn(db);
  const auto t = test(test_id);
  if (!t) return not_found(fmt::format("kernel '{}' has no test #{}", tree_->kernel(), test_id));
  if (t->outcome)
    return conflict(fmt::format("test #{} is finished; it cannot be abandoned", test_id));
  db.prepare("DELETE FROM readings WHERE test_id = ?1").bind(1, test_id).run();
  db.prepare("DELETE FROM tests WHERE id = ?1").bind(1, test_id).run();
  txn.commit();
  return {};
}

std::optional<TestRecord> DecisionLog::test(int64_t id) const {
  Statement s = tree_->workspace().db().prepare(
      fmt::format("SELECT {} FROM tests WHERE id = ?1 AND kernel = ?2", kTestColumns));
  s.bind(1, id).bind(2, tree_->kernel());
  if (!s.step()) return std::nullopt;
  return read_test(s);
}

std::vector<TestRecord> DecisionLog::tests() const {
  Statement s = tree_->workspace().db().prepare(
      fmt::format("SELECT {} FROM tests WHERE kernel = ?1 ORDER BY id", kTestColumns));
  s.bind(1, tree_->kernel());
  std::vector<TestRecord> out;
  while (s.step()) out.push_back(read_test(s));
  return out;
}

std::vector<TestReading> DecisionLog::readings(int64_t test_id) const {
  Statement s = tree_->workspace().db().prepare(
      "SELECT node_id, pair_index, position, start_ns, seconds, clock_json FROM readings "
      "WHERE test_id = ?1 AND kernel = ?2 ORDER BY pair_index, position");
  s.bind(1, test_id).bind(2, tree_->kernel());
  std::vector<TestReading> out;
  while (s.step()) {
    TestReading r;
    r.node_id = s.int64(0);
    r.pair_index = static_cast<int>(s.int64(1));
    r.position = static_cast<int>(s.int64(2));
    r.start_ns = s.int64(3);
    r.seconds = s.real(4);
    if (const auto clock = s.optional_text(5)) r.clock = json::parse(*clock, nullptr, false);
    out.push_back(std::move(r));
  }
  return out;
}

TestCounts DecisionLog::counts() const {
  TestCounts counts;
  for (const auto outcome : statistics::kAllOutcomes) counts.by_outcome[outcome] = 0;
  Statement s = tree_->workspace().db().prepare(
      "SELECT outcome, count(*) FROM tests WHERE kernel = ?1 GROUP BY outcome");
  s.bind(1, tree_->kernel());
  while (s.step()) {
    const auto outcome = s.optional_text(0);
    if (!outcome) {
      counts.unfinished = s.int64(1);
      continue;
    }
    const auto parsed = statistics::parse_outcome(*outcome);
    if (!parsed) throw std::logic_error(fmt::format("unknown test outcome '{}'", *outcome));
    counts.by_outcome[*parsed] = s.int64(1);
  }
  return counts;
}

}  // namespace headway::trees
