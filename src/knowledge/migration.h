#pragma once
// Moving a workspace to a new cpu toolchain (a compiler), as the seed system did when its
// toolchain changed mid-round: every legality rule is re-checked under the new toolchain and
// every kernel's head is rebuilt and checked, falling back to an older head that still works.
//
// Rules with a repro: the repro is rebuilt with the new toolchain. It still fails with the same
// signature: verified; it builds: retired; it fails otherwise: rewritten (the rule's text becomes
// the new diagnostic). Rules without a repro: carried-unverified. Statuses are per toolchain, so
// the previous toolchain's stay. Heads: a head that builds and passes the correctness check is
// kept; otherwise the newest earlier head in the history that does is made head again
// (DesignTree::set_head, reason naming the migration); when none does, the head stays and the
// kernel is reported broken. Finally meta cpu.toolchain (the compiler) and cpu.toolchain_id are
// set to the new toolchain.
#include <filesystem>
#include <string>
#include <vector>

#include "store/result.h"
#include "store/workspace.h"
#include "targets/cpu/compiler.h"

namespace headway::knowledge {

struct MigrationReport {
  std::string from_id;  // the previous current toolchain's id
  std::string to_id;
  int rules = 0;
  int verified = 0, rewritten = 0, retired = 0, carried = 0;
  int heads_kept = 0, heads_fell_back = 0, heads_broken = 0;
  std::vector<std::string> notes;  // one line per fallback, rewrite, retirement or broken head

  // "N rules: a re-verified, b rewritten, c retired, d carried over unverified; heads: x kept,
  // y fell back" (and ", z broken" when any).
  std::string summary() const;
};

struct MigrateOptions {
  std::filesystem::path cache_dir;  // where builds go; empty: <workspace>/.headway/builds
  bool check_heads = true;
};

// Migrates ws to `to` as described above. An error, changing nothing, when the compiler cannot
// be found or identified. Kernels whose contract is unknown to this headway count as kept when
// their head builds (they cannot be checked).
store::Result<MigrationReport> migrate_toolchain(store::Workspace& ws, const cpu::Toolchain& to,
                                                 const MigrateOptions& options = {});

}  // namespace headway::knowledge
