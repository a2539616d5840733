#include "store/pool_runs.h"

namespace headway::store {

void record_pool_run(Database& db, const std::string& kind, const nlohmann::json& use) {
  db.prepare("INSERT INTO pool_runs(kind, use_json) VALUES (?1, ?2)")
      .bind(1, kind)
      .bind(2, use.dump())
      .run();
}

std::vector<PoolRun> pool_runs(Database& db) {
  Statement s = db.prepare("SELECT id, kind, use_json, at FROM pool_runs ORDER BY id");
  std::vector<PoolRun> out;
  while (s.step()) {
    auto use = nlohmann::json::parse(s.text(2), nullptr, false);
    if (use.is_discarded()) continue;
    out.push_back({s.int64(0), s.text(1), std::move(use), s.text(3)});
  }
  return out;
}

}  // namespace headway::store
