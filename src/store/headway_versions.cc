#include "store/headway_versions.h"

namespace headway::store {

void record_headway_version(Database& db, const BuildInfo& build, bool created_workspace) {
  Statement known = db.prepare(
      "SELECT 1 FROM headway_versions WHERE version = ?1 AND git_commit = ?2 AND compiler = ?3");
  known.bind(1, build.version).bind(2, build.git_commit).bind(3, build.compiler);
  if (known.step()) return;
  // Another process may record the same build meanwhile: the UNIQUE constraint keeps one row.
  Statement add = db.prepare(
      "INSERT OR IGNORE INTO headway_versions(version, git_commit, compiler, created_workspace) "
      "VALUES (?1, ?2, ?3, ?4)");
  add.bind(1, build.version)
      .bind(2, build.git_commit)
      .bind(3, build.compiler)
      .bind(4, created_workspace ? 1 : 0)
      .run();
}

std::vector<HeadwayVersion> headway_versions(Database& db) {
  Statement s = db.prepare(
      "SELECT version, git_commit, compiler, created_workspace, first_at FROM headway_versions "
      "ORDER BY id");
  std::vector<HeadwayVersion> out;
  while (s.step()) out.push_back({s.text(0), s.text(1), s.text(2), s.int64(3) != 0, s.text(4)});
  return out;
}

}  // namespace headway::store
