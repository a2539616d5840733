#pragma once
// What `headway status` shows of a workspace besides the run in progress: per kernel its summary
// (report/kernel_summary.h, the figures `headway report` shows too) with the design library's
// untried candidates, the screen calibration and the device time by activity; over the workspace
// the geomean speedup, the screen calibration and the unsandboxed runs. As a JSON object, the
// `status --json` object (docs/CLI.md) less "run".
#include <cstdint>
#include <nlohmann/json.hpp>
#include <optional>
#include <utility>

#include "kernels/kernel_catalog.h"
#include "loop/screen_calibration.h"
#include "store/workspace.h"
#include "targets/target.h"

namespace headway::cli {

// The screen calibration (loop/screen_calibration.h) as JSON; nulls where undefined.
nlohmann::json screen_calibration_json(const loop::ScreenCalibration& c);

// The figures of the workspace under `target`, its kernels' contracts from `catalog` (a kernel it
// does not know has no decode ceiling, untried candidates or shape sets). Throws UsageError when
// a kernel's Design Tree cannot be opened and store::StoreError on a database failure.
nlohmann::json status_figures(store::Workspace& ws, targets::Target& target,
                              const KernelCatalog& catalog = KernelCatalog());

// Why one of status_figures' kernels has the speedup_verdict "unresolved", in a sentence: what
// the last side-by-side timing supports of its speedup, and what the acceptance test that made
// its head said, so that a reader can tell why the two disagree.
std::string unresolved_speedup_text(const nlohmann::json& kernel);

// What made one of status_figures' kernels' head and what it measures, in lines (no trailing
// newline): its node and design, the acceptance test that made it head, its speedup and ratio to
// the floor at each shape set, the toolchain, and `recheck` (how to check it again). The first
// line is a one-line subject.
std::string head_evidence(const nlohmann::json& kernel, const std::string& toolchain,
                          const std::string& recheck);

// status_figures for a watch: computed again only when something may have changed them. Every
// figure comes from the workspace's database, so the signal is SQLite's `PRAGMA data_version` on
// the watch's own connection, which changes when another connection (the optimize) commits, and
// costs no read of any table; a different target object computes them again too.
class StatusFigures {
 public:
  // `ws` must outlive this; `catalog` holds its kernels' contracts.
  explicit StatusFigures(store::Workspace& ws, KernelCatalog catalog = KernelCatalog())
      : ws_(&ws), catalog_(std::move(catalog)) {}

  // The figures under `target`, as status_figures computes them; the ones computed last when the
  // database did not change since and the target is the same object.
  const nlohmann::json& current(targets::Target& target);
  // How many times current() computed the figures.
  int64_t computations() const { return computations_; }

 private:
  store::Workspace* ws_;
  KernelCatalog catalog_;
  const targets::Target* target_ = nullptr;
  std::optional<int64_t> data_version_;
  nlohmann::json figures_;
  int64_t computations_ = 0;
};

}  // namespace headway::cli
