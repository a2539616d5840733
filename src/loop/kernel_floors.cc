#include "loop/kernel_floors.h"

#include "knowledge/facts.h"

namespace headway::loop {

std::optional<FactValues> load_floor_facts(store::Workspace& ws, const targets::Target& target,
                                           const std::string& toolchain) {
  FactValues values;
  for (const auto& name : target.floor_facts()) {
    const auto fact = knowledge::find_fact(ws, name, toolchain);
    if (!fact) return std::nullopt;
    values[name] = fact->value;
  }
  return values;
}

FactValues load_or_measure_floor_facts(store::Workspace& ws, targets::Target& target) {
  const std::string toolchain = knowledge::toolchain_id_of(target);
  if (auto facts = load_floor_facts(ws, target, toolchain)) return *facts;
  knowledge::measure_and_store_facts(ws, target, toolchain);
  return *load_floor_facts(ws, target, toolchain);
}

}  // namespace headway::loop
