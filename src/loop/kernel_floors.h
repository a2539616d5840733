#pragma once
// The floors the loop ranks kernels by, from the chip facts of the workspace's current toolchain
// (knowledge/facts.h): the target names the facts it needs (Target::floor_facts) and derives each
// kernel's floors from them (Target::floors). The facts are measured once per workspace,
// toolchain and device model (each model of a pool's devices) and kept in the facts table.
#include <map>
#include <optional>
#include <string>

#include "kernels/contract.h"
#include "store/workspace.h"
#include "targets/target.h"

namespace headway::loop {

using FactValues = std::map<std::string, double>;

// The target's floor facts stored under `toolchain`, or nullopt when any is missing: those of
// `model` (else of the unknown model, knowledge::find_fact) when it is given, else of any model.
std::optional<FactValues> load_floor_facts(store::Workspace& ws, const targets::Target& target,
                                           const std::string& toolchain,
                                           std::optional<std::string> model = std::nullopt);
// The stored floor facts of the target's current toolchain on its first device model
// (Target::device_models), measuring and storing every fact of the target first on each model
// that misses one (seconds on real hardware; a pool's models at once).
FactValues load_or_measure_floor_facts(store::Workspace& ws, targets::Target& target);
// The floor facts of figures read on `model`, where the workspace keeps facts of more than one
// named model under `toolchain` (a pool of mixed models): `model`'s own, nullopt when it has none
// (or is unknown). Nullopt too where it keeps one model's: the kernel's record's floor holds.
std::optional<FactValues> floor_facts_of_model(store::Workspace& ws, const targets::Target& target,
                                               const std::string& toolchain,
                                               const std::string& model);

}  // namespace headway::loop
