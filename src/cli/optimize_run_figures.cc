#include "cli/optimize_run_figures.h"

#include <optional>
#include <string>
#include <vector>

#include "loop/device_time.h"
#include "loop/head_curve.h"
#include "loop/kernel_registration.h"
#include "loop/truth_audit.h"

namespace headway::cli {

namespace {

nlohmann::json truth_json(const loop::TruthAudit& a) {
  return {{"judged", a.judged},
          {"false_accepts", a.false_accepts},
          {"true_gains", a.true_gains},
          {"false_rejects", a.false_rejects}};
}

nlohmann::json or_null(const std::optional<double>& v) {
  return v ? nlohmann::json(*v) : nlohmann::json(nullptr);
}

}  // namespace

void add_run_figures(store::Workspace& ws, targets::Target& target, const KernelCatalog& catalog,
                     const std::filesystem::path& cache_dir, nlohmann::json* out) {
  std::vector<std::vector<loop::HeadStep>> curves;
  std::vector<double> floors_ms;
  std::optional<loop::TruthAudit> total;
  bool every_floor = true;
  for (auto& k : (*out)["kernels"]) {
    const std::string name = k.at("name").get<std::string>();
    const std::vector<loop::HeadStep> curve = loop::head_curve(ws, name);
    nlohmann::json points = nlohmann::json::array();
    for (const auto& s : curve) points.push_back({s.device_seconds, s.head_ms});
    k["curve"] = points;
    const auto audit =
        loop::audit_against_truth(ws, target, loop::kernel_or_fail(catalog, name), cache_dir);
    k["truth"] = audit ? truth_json(*audit) : nlohmann::json(nullptr);
    if (audit) {
      if (!total) total.emplace();
      total->judged += audit->judged;
      total->false_accepts += audit->false_accepts;
      total->true_gains += audit->true_gains;
      total->false_rejects += audit->false_rejects;
    }
    curves.push_back(curve);
    const auto floor = k.find("floor_ms");
    if (floor == k.end() || !floor->is_number()) {
      every_floor = false;
    } else {
      floors_ms.push_back(floor->get<double>());
    }
  }
  (*out)["device_seconds"] = loop::total_device_seconds(ws);
  for (const auto& [key, ratio] :
       {std::pair{"device_seconds_to_1_25x", 1.25}, std::pair{"device_seconds_to_1_10x", 1.10}}) {
    (*out)[key] = every_floor ? or_null(loop::device_seconds_to_within(curves, floors_ms, ratio))
                              : nlohmann::json(nullptr);
  }
  (*out)["truth"] = total ? truth_json(*total) : nlohmann::json(nullptr);
}

}  // namespace headway::cli
