#include "trees/race_log.h"

#include <fmt/format.h>

#include <cmath>
#include <nlohmann/json.hpp>

#include "store/transaction.h"

namespace headway::trees {

namespace {

using store::Statement;
using store::Transaction;

constexpr std::string_view kRaceColumns =
    "id, kernel, budget, spent, ranking_json, started_at, finished_at";

RaceRecord read_race(const Statement& s) {
  RaceRecord r;
  r.id = s.int64(0);
  r.kernel = s.text(1);
  r.budget = static_cast<int64_t>(s.optional_real(2).value_or(0.0));
  if (const auto spent = s.optional_real(3)) r.spent = static_cast<int64_t>(*spent);
  if (const auto ranking = s.optional_text(4)) {
    const auto parsed = nlohmann::json::parse(*ranking, nullptr, false);
    if (parsed.is_array()) r.ranking = parsed.get<std::vector<int64_t>>();
  }
  r.started_at = s.text(5);
  r.finished_at = s.optional_text(6);
  return r;
}

}  // namespace

Result<int64_t> RaceLog::begin_race(int64_t budget) {
  if (budget <= 0)
    return invalid_input(fmt::format("a race's budget of {} readings is not positive", budget));
  store::Database& db = tree_->workspace().db();
  db.prepare("INSERT INTO races(kernel, budget) VALUES (?1, ?2)")
      .bind(1, tree_->kernel())
      .bind(2, static_cast<double>(budget))
      .run();
  return db.last_insert_rowid();
}

Status RaceLog::still_running(int64_t race_id) const {
  const auto race_record = race(race_id);
  if (!race_record)
    return not_found(fmt::format("kernel '{}' has no race #{}", tree_->kernel(), race_id));
  if (race_record->finished_at)
    return conflict(fmt::format("race #{} is already finished", race_id));
  return {};
}

Status RaceLog::record_reading(int64_t race_id, const RaceReading& r) {
  if (r.index < 0 || r.arm < 0)
    return invalid_input(
        fmt::format("race reading index {} or arm {} is negative", r.index, r.arm));
  if (!std::isfinite(r.seconds) || r.seconds < 0)
    return invalid_input(fmt::format("reading of {} seconds is not a time", r.seconds));
  store::Database& db = tree_->workspace().db();
  Transaction txn(db);
  if (auto open = still_running(race_id); !open) return open;
  if (!tree_->node(r.node_id))
    return not_found(fmt::format("kernel '{}' has no node #{}", tree_->kernel(), r.node_id));
  Statement taken = db.prepare("SELECT 1 FROM readings WHERE race_id = ?1 AND pair_index = ?2");
  taken.bind(1, race_id).bind(2, r.index);
  if (taken.step())
    return conflict(fmt::format("race #{} already has a reading at index {}", race_id, r.index));
  db.prepare(
        "INSERT INTO readings(race_id, kernel, node_id, pair_index, position, start_ns, seconds) "
        "VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7)")
      .bind(1, race_id)
      .bind(2, tree_->kernel())
      .bind(3, r.node_id)
      .bind(4, r.index)
      .bind(5, r.arm)
      .bind(6, r.start_ns)
      .bind(7, r.seconds)
      .run();
  txn.commit();
  return {};
}

Status RaceLog::finish_race(int64_t race_id, int64_t spent, const std::vector<int64_t>& ranking) {
  store::Database& db = tree_->workspace().db();
  Transaction txn(db);
  if (auto open = still_running(race_id); !open) return open;
  for (const int64_t node : ranking) {
    if (!tree_->node(node))
      return not_found(fmt::format("kernel '{}' has no node #{} to rank", tree_->kernel(), node));
  }
  db.prepare(
        "UPDATE races SET spent = ?2, ranking_json = ?3, "
        "finished_at = strftime('%Y-%m-%dT%H:%M:%fZ', 'now') WHERE id = ?1")
      .bind(1, race_id)
      .bind(2, static_cast<double>(spent))
      .bind(3, nlohmann::json(ranking).dump())
      .run();
  txn.commit();
  return {};
}

int64_t RaceLog::abandon_unfinished_races() {
  store::Database& db = tree_->workspace().db();
  Transaction txn(db);
  db.prepare(
        "DELETE FROM readings WHERE race_id IN "
        "(SELECT id FROM races WHERE kernel = ?1 AND finished_at IS NULL)")
      .bind(1, tree_->kernel())
      .run();
  db.prepare("DELETE FROM races WHERE kernel = ?1 AND finished_at IS NULL")
      .bind(1, tree_->kernel())
      .run();
  const int64_t abandoned = db.changes();
  txn.commit();
  return abandoned;
}

std::optional<RaceRecord> RaceLog::race(int64_t id) const {
  Statement s = tree_->workspace().db().prepare(
      fmt::format("SELECT {} FROM races WHERE id = ?1 AND kernel = ?2", kRaceColumns));
  s.bind(1, id).bind(2, tree_->kernel());
  if (!s.step()) return std::nullopt;
  return read_race(s);
}

std::vector<RaceRecord> RaceLog::races() const {
  Statement s = tree_->workspace().db().prepare(
      fmt::format("SELECT {} FROM races WHERE kernel = ?1 ORDER BY id", kRaceColumns));
  s.bind(1, tree_->kernel());
  std::vector<RaceRecord> out;
  while (s.step()) out.push_back(read_race(s));
  return out;
}

std::vector<RaceReading> RaceLog::readings(int64_t race_id) const {
  Statement s = tree_->workspace().db().prepare(
      "SELECT node_id, pair_index, position, start_ns, seconds FROM readings "
      "WHERE race_id = ?1 AND kernel = ?2 ORDER BY pair_index");
  s.bind(1, race_id).bind(2, tree_->kernel());
  std::vector<RaceReading> out;
  while (s.step()) {
    RaceReading r;
    r.node_id = s.int64(0);
    r.index = static_cast<int>(s.int64(1));
    r.arm = static_cast<int>(s.int64(2));
    r.start_ns = s.int64(3);
    r.seconds = s.real(4);
    out.push_back(r);
  }
  return out;
}

}  // namespace headway::trees
