#pragma once
// Screen calibration: how far a target's static cost (Target::static_cost, e.g. a schedule's
// makespan) can be trusted to rank candidates. For every raced or tested candidate the loop
// records the effect the static cost predicted against the head, 100 (1 - cost / head cost), and
// the effect the device measured, 100 (1 - time / head time) (positive: a gain), in the table
// screen_calibration (schema v5).
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include "store/workspace.h"

namespace headway::loop {

struct ScreenCalibrationPoint {
  std::string kernel;
  int64_t node_id = 0;
  int64_t head_id = 0;
  std::string toolchain;
  double predicted_pct = 0.0;
  double measured_pct = 0.0;
  std::string source;  // "race" (medians of one race session) or "test" (the acceptance test)
};

void record_screen_calibration(store::Workspace& ws, const ScreenCalibrationPoint& point);

struct ScreenCalibration {
  int candidates = 0;              // candidates with a prediction and a measurement
  std::optional<double> spearman;  // rank correlation of predicted and measured effect
  int predicted_gains = 0;         // candidates the static cost predicted faster than the head
  int false_gains = 0;             // ... that the device did not measure faster
  // false_gains / predicted_gains; nullopt when no gain was predicted.
  std::optional<double> false_gain_rate() const;
};

// Over one kernel's candidates (every kernel's when `kernel` is empty). A candidate measured by
// an acceptance test counts with that test's effect, else with its race.
ScreenCalibration summarize_screen_calibration(store::Workspace& ws, std::string_view kernel = "");

// Whether the screen may reject candidates by static cost: until 5 candidates are calibrated it
// may; after that only while the rank correlation is at least 0.3.
bool static_cost_trusted(const ScreenCalibration& summary);

}  // namespace headway::loop
