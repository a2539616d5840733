#include "report/t4_export.h"

#include "common/stats.h"
#include "report/report_text.h"

namespace headway::report {

std::string t4_invalidity(trees::NodeStatus status) {
  using trees::NodeStatus;
  switch (status) {
    case NodeStatus::kBuildFailed:
      return "compile";
    case NodeStatus::kIncorrect:
      return "correctness";
    case NodeStatus::kCrashed:
    case NodeStatus::kCheated:
      return "runtime";
    case NodeStatus::kTimedOut:
      return "timeout";
    case NodeStatus::kLintRejected:
      return "constraints";
    default:
      return "correct";
  }
}

nlohmann::json to_t4(const Report& report) {
  nlohmann::json results = nlohmann::json::array();
  for (const auto& k : report.kernels) {
    for (const auto& n : k.nodes) {
      const auto& node = n.node;
      if (node.status == trees::NodeStatus::kProposed) continue;  // never screened
      nlohmann::json configuration = {
          {"kernel", k.name}, {"node", node.id}, {"design", node.design}};
      if (node.params.is_object()) {
        for (const auto& [key, value] : node.params.items()) configuration[key] = value;
      }
      const std::vector<double> runtimes = n.all_ms();
      const std::string invalidity = t4_invalidity(node.status);
      nlohmann::json measurements = nlohmann::json::array();
      if (!runtimes.empty())
        measurements.push_back({{"name", "time"}, {"value", median(runtimes)}, {"unit", "ms"}});
      measurements.push_back(
          {{"name", "headway_status"}, {"value", trees::to_string(node.status)}, {"unit", ""}});
      results.push_back({{"timestamp", node.updated_at},
                         {"configuration", configuration},
                         {"objectives", {"time"}},
                         {"times", {{"runtimes", runtimes}}},
                         {"invalidity", invalidity},
                         {"correctness", invalidity == "correct" ? 1 : 0},
                         {"measurements", measurements}});
    }
  }
  return {{"schema_version", kT4SchemaVersion}, {"results", results}};
}

}  // namespace headway::report
