#include "loop/kernel_floors.h"

#include <algorithm>
#include <stdexcept>

#include "knowledge/facts.h"

namespace headway::loop {

std::optional<FactValues> load_floor_facts(store::Workspace& ws, const targets::Target& target,
                                           const std::string& toolchain,
                                           std::optional<std::string> model) {
  FactValues values;
  for (const auto& name : target.floor_facts()) {
    const auto fact = model ? knowledge::find_fact(ws, name, toolchain, *model)
                            : knowledge::find_fact(ws, name, toolchain);
    if (!fact) return std::nullopt;
    values[name] = fact->value;
  }
  return values;
}

FactValues load_or_measure_floor_facts(store::Workspace& ws, targets::Target& target) {
  const std::string toolchain = knowledge::toolchain_id_of(target);
  const std::vector<std::string> models = target.device_models();
  std::vector<std::string> missing;
  for (const auto& model : models) {
    if (!load_floor_facts(ws, target, toolchain, model)) missing.push_back(model);
  }
  if (missing.size() == models.size()) {
    knowledge::measure_and_store_facts(ws, target, toolchain);
  } else {
    for (const auto& model : missing) {
      targets::FactOptions options;
      options.model = model;
      knowledge::measure_and_store_facts(ws, target, toolchain, options);
    }
  }
  const auto facts =
      load_floor_facts(ws, target, toolchain, models.empty() ? std::string() : models.front());
  if (!facts) throw std::runtime_error("the chip facts measured lack a floor fact");
  return *facts;
}

std::optional<FactValues> floor_facts_of_model(store::Workspace& ws, const targets::Target& target,
                                               const std::string& toolchain,
                                               const std::string& model) {
  std::vector<std::string> models = knowledge::fact_models(ws, toolchain);
  std::erase(models, std::string());
  if (models.size() < 2 || model.empty()) return std::nullopt;
  if (std::find(models.begin(), models.end(), model) == models.end()) return std::nullopt;
  return load_floor_facts(ws, target, toolchain, model);
}

}  // namespace headway::loop
