#pragma once
// How fast a run got close to the floor: each kernel's head time against the workspace's device
// time, and the device time until every kernel was within a ratio of its floor (`headway
// optimize --json`, `headway ablate`).
#include <optional>
#include <string>
#include <vector>

#include "store/workspace.h"

namespace headway::loop {

struct HeadStep {
  double device_seconds = 0;  // the workspace's device seconds (every kernel's) at the change
  double head_ms = 0;         // the head's median then
};

// The kernel's baseline at device time 0, then each head an acceptance test set, in order (heads
// set otherwise, by a migration or a revoked cheat, carry no device time and are left out).
// Empty when the kernel is not registered or its baseline has no time.
std::vector<HeadStep> head_curve(store::Workspace& ws, const std::string& kernel);

// The device seconds from which every kernel's head (curves[i], as head_curve gives it) was
// within `ratio` of its floor (floors_ms[i]); nullopt when that never held, or with no kernel.
std::optional<double> device_seconds_to_within(const std::vector<std::vector<HeadStep>>& curves,
                                               const std::vector<double>& floors_ms, double ratio);

}  // namespace headway::loop
