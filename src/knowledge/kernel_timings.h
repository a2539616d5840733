#pragma once
// Per-toolchain timings of each kernel's baseline and head, kept in the workspace table
// `kernel_timings` (schema v3). The table is append-only: measuring again adds rows, so the
// figures of an earlier toolchain (or an earlier measurement) are never overwritten; the newest
// row of a (kernel, toolchain, role) is the current one.
//
// A toolchain migration re-measures every kernel with the new toolchain: its baseline and its
// head, built with that toolchain, are timed side by side in one session
// (Target::time_side_by_side: interleaved readings, medians), and both figures are stored under
// the new toolchain's id.
#include <cstdint>
#include <filesystem>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "common/median_interval.h"
#include "kernels/contract.h"
#include "store/workspace.h"
#include "targets/floor_bracket.h"
#include "targets/target.h"
#include "trees/design_tree.h"

namespace headway::knowledge {

struct KernelTiming {
  int64_t id = 0;  // set by the store
  std::string kernel;
  std::string toolchain;  // the toolchain id it was built with
  int64_t node_id = 0;
  std::string role;  // "baseline" or "head"
  double median_ms = 0.0;
  std::optional<double> cv;  // coefficient of variation of the readings (a fraction)
  int readings = 0;
  std::string method;       // one line
  std::string measured_at;  // set by the store
  // Every reading in milliseconds (schema 8); empty for timings stored before it.
  std::vector<double> readings_ms;
  // The shape set it was measured at (schema 9): empty for the kernel's first or only one.
  std::string shape;
  // The memory floor at `shape` from the floor facts measured just before the readings (schema
  // 13); nullopt where none were (the kernel's record has the floor then).
  std::optional<double> floor_ms;
  // The decode (instruction) ceiling from the same facts (schema 14); nullopt where none were or
  // the target has no such ceiling.
  std::optional<double> decode_floor_ms;
  // The model of the device the readings were taken on (schema 15; Target::device_model, a pool
  // job's device where the timing ran on one); empty where it was not recorded.
  std::string device_model = "";
};

// The 95% interval of the timing's median (common/median_interval.h); nullopt when it kept no
// readings.
std::optional<MedianInterval> median_interval_of(const KernelTiming& timing);
// Whether the timing's readings fall in two groups (common/median_interval.h); false when it
// kept none.
Bimodality bimodality_of(const KernelTiming& timing);

// What a baseline's and a head's timings support of the head's speedup (baseline over head).
struct SpeedupSupport {
  RatioInterval interval;
  // From the ratios of readings taken in turn in one session (paired_ratio_interval), else from
  // the two medians' intervals (ratio_interval), which is wider.
  bool paired = false;
  // "faster" or "slower" when the interval lies above or below 1, "unresolved" when it holds 1.
  std::string verdict() const;
};
// Nullopt when either timing kept no readings.
std::optional<SpeedupSupport> speedup_support(const KernelTiming& baseline,
                                              const KernelTiming& head);

inline constexpr const char* kBaselineRole = "baseline";
inline constexpr const char* kHeadRole = "head";

// Appends one timing. Throws store::StoreError when the node is not the kernel's, the role is
// neither role, or median_ms / readings are not positive.
void record_kernel_timing(store::Workspace& ws, const KernelTiming& timing);
// The newest timing of (kernel, toolchain, role) at `shape` (empty: the first or only shape
// set); nullopt when there is none.
std::optional<KernelTiming> latest_kernel_timing(store::Workspace& ws, std::string_view kernel,
                                                 std::string_view toolchain, std::string_view role,
                                                 std::string_view shape = "");
// Every timing of the kernel at its first or only shape set, oldest first.
std::vector<KernelTiming> kernel_timings(store::Workspace& ws, std::string_view kernel);

// The head's current time under `toolchain`, for the loop's priorities and for status: the
// newest head timing of that toolchain when it times the current head and was measured after it
// became head; otherwise the figure the head history recorded when it became head (which may
// come from another toolchain), and nullopt when there is none.
std::optional<double> current_head_ms(store::Workspace& ws, const trees::DesignTree& tree,
                                      std::string_view toolchain);
// Likewise the baseline: the newest baseline timing of `toolchain`, else the kernel's record
// (the figure of the toolchain that registered it).
std::optional<double> current_baseline_ms(store::Workspace& ws, const trees::DesignTree& tree,
                                          std::string_view toolchain);
// The stored timings those figures come from: the head timing current_head_ms uses, the
// baseline timing current_baseline_ms uses; nullopt where they use the tree's records instead.
std::optional<KernelTiming> current_head_timing(store::Workspace& ws, const trees::DesignTree& tree,
                                                std::string_view toolchain);
std::optional<KernelTiming> current_baseline_timing(store::Workspace& ws,
                                                    const trees::DesignTree& tree,
                                                    std::string_view toolchain);

struct Remeasured {
  std::string kernel;
  int64_t baseline_node = 0;
  int64_t head_node = 0;
  std::optional<KernelTiming> baseline;  // stored; nullopt when the timing failed
  std::optional<KernelTiming> head;
  std::string failure;  // why there are no figures; empty when there are
  // The floor of the kernel's own shape set's timing, where a FloorBracket was given.
  std::optional<targets::BracketedFloor> floor;
};

// Builds the kernel's baseline and current head with the target's selected toolchain, times them
// side by side (`readings` interleaved readings each after two warm-ups; a head that is the
// baseline is timed once and stored under both roles) and stores both figures under the
// toolchain's id in one transaction. A build or timing failure stores nothing and is returned in
// `failure`. A kernel with several shape sets is then timed at each of the others likewise (never
// at a check-only one: kernels/contract.h, timed_shape_sets), each pair stored under its shape
// set's name (a failure there leaves the figures stored before it).
// With `floor`, each shape set's timing runs inside floor->around (targets/floor_bracket.h) and
// carries its shape set's memory floor and decode ceiling from the facts measured around it
// (floor_ms, decode_floor_ms), its method
// saying how they were measured: so that a ratio to the floor compares figures of the same
// seconds where the floor facts move with the hour (Target::times_on_host). A floor measurement
// that fails is the failure.
Remeasured remeasure_baseline_and_head(store::Workspace& ws, trees::DesignTree& tree,
                                       const KernelContract& kernel, targets::Target& target,
                                       const std::filesystem::path& cache_dir, int readings = 11,
                                       targets::FloorBracket* floor = nullptr);

}  // namespace headway::knowledge
