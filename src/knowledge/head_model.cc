#include "knowledge/head_model.h"

#include <nlohmann/json.hpp>

#include "knowledge/kernel_timings.h"

namespace headway::knowledge {

namespace {

// Whether the workspace records a pool other than this machine (meta "pool").
bool pool_recorded(store::Workspace& ws) {
  const auto text = ws.meta("pool");
  if (!text || text->empty()) return false;
  const auto config = nlohmann::json::parse(*text, nullptr, false);
  return config.is_object() && config.value("kind", "local") != "local";
}

}  // namespace

std::string head_device_model(store::Workspace& ws, const trees::DesignTree& tree,
                              trees::DecisionLog& log, std::string_view toolchain,
                              const targets::Target& target) {
  if (const auto timing = current_head_timing(ws, tree, toolchain)) return timing->device_model;
  const trees::HeadRecord head = tree.head();
  if (head.test_id) {
    for (const auto& reading : log.readings(*head.test_id)) {
      if (reading.node_id != head.node_id || !reading.clock.is_object()) continue;
      if (reading.clock.contains("worker")) return reading.clock.value("model", "");
    }
    return target.device_model();  // read on this machine
  }
  return pool_recorded(ws) ? std::string() : target.device_model();
}

}  // namespace headway::knowledge
