#pragma once
// The headway builds that made and used a workspace: every workspace records the build that
// created it and, once per distinct build (version, commit, compiler), each build that opened it
// (every open may write: a schema upgrade, or the verb's own changes). Workspaces created
// before schema version 5 have no creating build on record.
#include <string>
#include <vector>

#include "common/build_info.h"
#include "store/database.h"

namespace headway::store {

struct HeadwayVersion {
  std::string version;
  std::string git_commit;  // empty: unknown
  std::string compiler;
  bool created_workspace = false;  // this build created the workspace
  std::string first_at;            // UTC, when it first opened the workspace
};

// Adds `build` unless that build is on record already; with created_workspace, records it as the
// creator. Writes nothing when the build is known. Requires: db at schema version 5 or later.
// Throws StoreError when the database cannot be written.
void record_headway_version(Database& db, const BuildInfo& build, bool created_workspace);

// Every recorded build, in the order they first opened the workspace.
std::vector<HeadwayVersion> headway_versions(Database& db);

}  // namespace headway::store
