#pragma once
// The device model a kernel's head figure comes from (Target::device_model): on a pool of mixed
// models, which model the head's time was read on, so that its figures are told apart from those
// of a head read on another model and divided by the floor of their own model.
#include <string>
#include <string_view>

#include "store/workspace.h"
#include "targets/target.h"
#include "trees/decision_log.h"
#include "trees/design_tree.h"

namespace headway::knowledge {

// The model of the device the kernel's head figure (current_head_ms under `toolchain`) was read
// on: the one its head timing recorded where the figure is a timing's; else the one the readings
// of the acceptance test that made it head recorded in their clocks (`clock.model` of the pool's
// readings); else `target`'s own device's where those readings, or the baseline's registration
// timing, ran on this machine (no `clock.worker`; a workspace whose recorded pool is local).
// Empty when the model is unknown (not recorded, or a target that names none).
std::string head_device_model(store::Workspace& ws, const trees::DesignTree& tree,
                              trees::DecisionLog& log, std::string_view toolchain,
                              const targets::Target& target);

}  // namespace headway::knowledge
