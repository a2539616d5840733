#include "cli/final_timings.h"

#include <fmt/format.h>

#include "cli/cli_support.h"
#include "common/median_interval.h"
#include "knowledge/kernel_timings.h"
#include "knowledge/workspace_target.h"
#include "loop/kernel_floors.h"
#include "loop/kernel_registration.h"
#include "targets/floor_bracket.h"
#include "targets/floors.h"
#include "trees/design_tree.h"

namespace headway::cli {

nlohmann::json time_heads_side_by_side(store::Workspace& ws, targets::Target& target,
                                       const KernelCatalog& catalog,
                                       const std::vector<std::string>& kernels) {
  // The workspace's toolchain: a migration during the run may have moved it.
  const targets::ToolchainInfo identity =
      target.select_toolchain(knowledge::workspace_toolchain(ws, target.name()));
  if (!identity.found) throw EnvironmentError(identity.error);
  constexpr int kReadings = 11;
  // Where the floor moves with the hour, the floor of each timing's own seconds: the floor facts
  // measured around its readings (targets/floor_bracket.h), stored with it.
  std::optional<targets::FloorBracket> floor;
  if (target.times_on_host()) floor.emplace(target);
  fmt::print(stderr,
             "timing every baseline and head side by side ({} interleaved readings each{}) ...\n",
             kReadings, floor ? ", the floor facts measured around each kernel's" : "");
  nlohmann::json out = nlohmann::json::array();
  for (const auto& name : kernels) {
    auto tree = trees::DesignTree::open(ws, name);
    if (!tree) continue;  // never registered (the budget ran out first)
    const auto r = knowledge::remeasure_baseline_and_head(
        ws, tree.value(), loop::kernel_or_fail(catalog, name), target,
        ws.root() / ".headway" / "builds", kReadings, floor ? &*floor : nullptr);
    if (!r.failure.empty() || !r.baseline || !r.head) {
      out.push_back({{"name", name},
                     {"head_node", r.head_node},
                     {"baseline_ms", nullptr},
                     {"head_ms", nullptr},
                     {"speedup", nullptr},
                     {"device_model", nullptr},
                     {"floor_ms", nullptr},
                     {"ratio_to_floor", nullptr},
                     {"below_floor", false},
                     {"baseline_interval_ms", nullptr},
                     {"head_interval_ms", nullptr},
                     {"head_bimodal", false},
                     {"speedup_interval", nullptr},
                     {"speedup_verdict", nullptr},
                     {"floor_held", nullptr},
                     {"floor_timings", nullptr},
                     {"failure", r.failure}});
      continue;
    }
    // The floor measured around these readings where the target's floor moves with the hour,
    // else that of the facts of the model the head was timed on where the workspace keeps
    // several models' (loop::floor_facts_of_model), else the one the kernel was registered with.
    std::optional<double> floor_ms =
        r.head->floor_ms ? r.head->floor_ms : tree.value().record().floor_ms;
    if (const auto facts =
            loop::floor_facts_of_model(ws, target, identity.id, r.head->device_model);
        facts && !r.head->floor_ms) {
      floor_ms = target.floors(loop::kernel_or_fail(catalog, name), *facts).memory_ms;
    }
    // What the run supports: each median's 95% interval, and the speedup's interval from the
    // two (common/median_interval.h); a head that is the baseline claims nothing.
    const auto baseline_interval = knowledge::median_interval_of(*r.baseline);
    const auto head_interval = knowledge::median_interval_of(*r.head);
    const auto interval_json = [](const std::optional<MedianInterval>& i) {
      return i ? nlohmann::json{i->low, i->high} : nlohmann::json(nullptr);
    };
    nlohmann::json speedup_interval = nullptr;
    std::string verdict;
    bool paired = false;
    if (r.head_node != r.baseline_node) {
      if (const auto support = knowledge::speedup_support(*r.baseline, *r.head)) {
        speedup_interval = {support->interval.low, support->interval.high};
        verdict = support->verdict();
        paired = support->paired;
      }
    }
    out.push_back(
        {{"name", name},
         {"head_node", r.head_node},
         {"baseline_ms", r.baseline->median_ms},
         {"head_ms", r.head->median_ms},
         {"speedup", r.baseline->median_ms / r.head->median_ms},
         {"device_model", r.head->device_model.empty() ? nlohmann::json(nullptr)
                                                       : nlohmann::json(r.head->device_model)},
         {"floor_ms", floor_ms ? nlohmann::json(*floor_ms) : nlohmann::json(nullptr)},
         {"ratio_to_floor",
          floor_ms ? nlohmann::json(r.head->median_ms / *floor_ms) : nlohmann::json(nullptr)},
         {"below_floor", floor_ms && targets::below_floor(r.head->median_ms / *floor_ms)},
         {"baseline_interval_ms", interval_json(baseline_interval)},
         {"head_interval_ms", interval_json(head_interval)},
         {"head_bimodal", knowledge::bimodality_of(*r.head).bimodal},
         {"speedup_interval", speedup_interval},
         {"speedup_paired", paired},
         {"speedup_verdict", verdict.empty() ? nlohmann::json(nullptr) : nlohmann::json(verdict)},
         {"floor_held", r.floor ? nlohmann::json(r.floor->held) : nlohmann::json(nullptr)},
         {"floor_timings", r.floor ? nlohmann::json(r.floor->timings) : nlohmann::json(nullptr)},
         {"failure", nullptr}});
  }
  return out;
}

void print_timed(const nlohmann::json& kernels) {
  for (const auto& k : kernels) {
    if (!k["failure"].is_null()) {
      fmt::print("  {}: not timed: {}\n", k["name"].get<std::string>(),
                 k["failure"].get<std::string>());
      continue;
    }
    const auto interval = [](const nlohmann::json& i) {
      return i.is_null() ? std::string()
                         : fmt::format(" [{:.3f}, {:.3f}]", i[0].get<double>(), i[1].get<double>());
    };
    std::string support;
    if (!k["speedup_verdict"].is_null()) {
      const std::string verdict = k["speedup_verdict"].get<std::string>();
      const char* from = k["speedup_paired"].get<bool>() ? "its readings in turn" : "the intervals";
      const double low = k["speedup_interval"][0].get<double>();
      const double high = k["speedup_interval"][1].get<double>();
      support =
          verdict == "unresolved"
              ? fmt::format(" (not supported by this run: {:.2f}x to {:.2f}x from {} holds 1)", low,
                            high, from)
              : fmt::format(" ({} in every ratio {} allow: {:.2f}x to {:.2f}x)", verdict, from, low,
                            high);
    }
    fmt::print("  {:<8} baseline {:.3f} ms{}, head node {} {:.3f} ms{}{}: {:.2f}x{}\n",
               k["name"].get<std::string>(), k["baseline_ms"].get<double>(),
               interval(k["baseline_interval_ms"]), k["head_node"].get<int64_t>(),
               k["head_ms"].get<double>(), interval(k["head_interval_ms"]),
               k["head_bimodal"].get<bool>() ? " (bimodal readings)" : "",
               k["speedup"].get<double>(), support);
    if (k["below_floor"] == true) {
      fmt::print("  {:<8} head at {}\n", k["name"].get<std::string>(),
                 targets::below_floor_note(k["ratio_to_floor"].get<double>()));
    }
    if (k["floor_held"] == false) {
      fmt::print(
          "  {:<8} its floor moved during its readings in each of {} timings: its ratio to "
          "the floor is uncertain\n",
          k["name"].get<std::string>(), k["floor_timings"].get<int>());
    }
  }
}

}  // namespace headway::cli
