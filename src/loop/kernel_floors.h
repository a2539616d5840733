#pragma once
// The floors the loop ranks kernels by, from the chip facts of the workspace's current toolchain
// (knowledge/facts.h): the target names the facts it needs (Target::floor_facts) and derives each
// kernel's floors from them (Target::floors). The facts are measured once per workspace and
// toolchain and kept in the facts table.
#include <map>
#include <optional>
#include <string>

#include "kernels/contract.h"
#include "store/workspace.h"
#include "targets/target.h"

namespace headway::loop {

using FactValues = std::map<std::string, double>;

// The target's floor facts stored under `toolchain`, or nullopt when any is missing.
std::optional<FactValues> load_floor_facts(store::Workspace& ws, const targets::Target& target,
                                           const std::string& toolchain);
// The stored floor facts of the target's current toolchain, measuring and storing every fact of
// the target first when one is missing (seconds on real hardware).
FactValues load_or_measure_floor_facts(store::Workspace& ws, targets::Target& target);

}  // namespace headway::loop
