#pragma once
// Moving a workspace to a new toolchain of its target (for cpu: a compiler), as the seed system
// did when its
// toolchain changed mid-round: every legality rule is re-checked under the new toolchain and
// every kernel's head is rebuilt and checked, falling back to an older head that still works.
//
// First every kernel's tree is mined for rules (rules.h), so failures not yet mined count.
// Rules with a repro: the repro is rebuilt with the new toolchain. It still fails with the same
// signature: verified; it builds: retired; it fails otherwise: rewritten (the rule's text becomes
// the new diagnostic). Rules without a repro: carried-unverified. Statuses are per toolchain, so
// the previous toolchain's stay. Heads: a head that builds and passes the correctness check is
// kept; otherwise the newest earlier head in the history that does is made head again
// (DesignTree::set_head, reason naming the migration); when none does, the head stays and the
// kernel is reported broken. Then every kernel's baseline and (possibly fallen-back) head are
// re-measured with the new toolchain, side by side in one session (kernel_timings.h), and stored
// under the new toolchain's id next to the previous toolchain's figures, which stay. Finally meta
// <target>.toolchain (the spec) and <target>.toolchain_id are set to the new toolchain.
//
// Requires that no optimizer works on the workspace meanwhile: the caller holds the workspace's
// optimize pause (loop/workspace_pause.h), as `headway migrate` does.
#include <cstdint>
#include <filesystem>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "common/result.h"
#include "kernels/kernel_catalog.h"
#include "store/workspace.h"
#include "targets/target.h"

namespace headway::knowledge {

struct MigrationReport {
  std::string from_id;  // the previous current toolchain's id
  std::string to_id;
  int mined_new_rules = 0;  // rules mined from the trees' failures before re-verifying
  int rules = 0;
  int verified = 0, rewritten = 0, retired = 0, carried = 0;
  int heads_kept = 0, heads_fell_back = 0, heads_broken = 0;
  int ports_proposed = 0, ports_failed = 0;  // with a porter: ports that passed, and that did not
  std::vector<std::string> notes;  // one line per fallback, rewrite, retirement or broken head

  // One per kernel when re-measuring: the new toolchain's figures and the previous ones (the
  // previous toolchain's newest timings when it has some, else the kernel record's baseline and
  // the head history's figure of the head before the migration).
  struct Timings {
    std::string kernel;
    int64_t baseline_node = 0, head_node = 0, previous_head_node = 0;
    std::optional<double> baseline_ms, head_ms;  // new toolchain; nullopt when not measured
    std::optional<double> previous_baseline_ms, previous_head_ms;
    int readings = 0;
    std::string failure;  // why there are no new figures
  };
  std::vector<Timings> timings;
  // "N rules: a re-verified, b rewritten, c retired, d carried over unverified; heads: x kept,
  // y fell back" (and ", z broken" when any; "; ports: p proposed for testing, f failed" with a
  // porter).
  std::string summary() const;
};

// A port of a head that fails under the new toolchain, as a porter (an agent) proposes it.
struct Port {
  std::string source;
  std::string proposer;               // recorded on the node, e.g. "openai:m porter"
  std::optional<int64_t> agent_call;  // the call that wrote it (agents/agent_ledger.h)
};
// kernel, the failing head's source, why it fails under the new toolchain (its first diagnostic
// or the check's description): a port to try, or nullopt when the porter has none.
using Porter = std::function<std::optional<Port>(
    const std::string& kernel, const std::string& source, const std::string& why)>;

struct MigrateOptions {
  std::filesystem::path cache_dir;  // where builds go; empty: <workspace>/.headway/builds
  bool check_heads = true;
  bool remeasure = true;  // re-measure baselines and heads (needs check_heads' fallbacks first)
  int readings = 11;      // timed readings of each when re-measuring
  // With a porter, every head that fails is ported: the port becomes a variant of the failing
  // head, built and checked with the new toolchain. One that passes stays proposed, so that the
  // next optimize run tests it against the head the kernel fell back to (a port replaces a head
  // only through the acceptance test); one that fails gets its status (build-failed, incorrect).
  Porter port;
  // Called with each port's node, the agent call that wrote it, and whether the node is an
  // earlier one with the same code (the port is a duplicate).
  std::function<void(int64_t node, int64_t agent_call, bool duplicate)> on_ported;
  // The contracts of the workspace's kernels (cli: kernel_catalog_or_throw); by default the
  // built-in kernels only.
  KernelCatalog catalog;
};

// Migrates ws to the toolchain selected in `to` (the workspace's target) as described above. An
// error, changing nothing, when that toolchain cannot be found or identified. Kernels whose
// contract options.catalog does not know count as kept when their head builds (they cannot be
// checked).
Result<MigrationReport> migrate_toolchain(store::Workspace& ws, targets::Target& to,
                                          const MigrateOptions& options = {});

}  // namespace headway::knowledge
