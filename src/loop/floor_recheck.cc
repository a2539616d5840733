#include "loop/floor_recheck.h"

#include <fmt/format.h>

#include <algorithm>
#include <exception>

#include "loop/kernel_registration.h"
#include "targets/floor_bracket.h"
#include "targets/floors.h"

namespace headway::loop {

std::string Recheck::describe() const {
  std::string out;
  for (const auto& l : lowered)
    out += fmt::format("{}{} {:.3f} -> {:.3f} ms", out.empty() ? "lowered: " : ", ", l.kernel,
                       l.was_ms, l.now_ms);
  if (out.empty()) out = "measured again, none lower than stored";
  std::string heads;
  for (const auto& j : judged)
    heads += fmt::format("{}{} {:.2f}x ({:.3f} ms against {:.3f} ms)", heads.empty() ? "" : ", ",
                         j.kernel, j.ratio(), j.head_ms, j.floor_ms);
  if (!heads.empty()) out += "; heads timed around it: " + heads;
  for (const auto& u : unjudged) out += "; not timed: " + u;
  return out;
}

bool FloorRecheck::wanted(const std::vector<std::string>& near, KernelTrees& trees) {
  bool unjudged = false;
  for (const auto& name : near) {
    const double head = trees.head_ms(name);
    if (const auto it = judged_.find(name); it != judged_.end() && it->second.head_ms == head)
      continue;
    judged_[name] = Judged{head, std::nullopt};
    unjudged = true;
  }
  return unjudged;
}

std::optional<double> FloorRecheck::judged_ratio(const std::string& kernel,
                                                 KernelTrees& trees) const {
  const auto it = judged_.find(kernel);
  if (it == judged_.end() || it->second.head_ms != trees.head_ms(kernel)) return std::nullopt;
  return it->second.ratio;
}

Result<Recheck> FloorRecheck::recheck(targets::Target& target, const KernelCatalog& catalog,
                                      const std::vector<std::string>& kernels,
                                      const std::vector<std::string>& near, KernelTrees& trees,
                                      const ArtifactOf& artifact_of) {
  Recheck out;
  struct Head {
    std::string name;
    const KernelContract* kernel = nullptr;
    targets::Artifact artifact;
    targets::Timing timing;
  };
  std::vector<Head> heads;
  for (const auto& name : near) {
    trees::DesignTree& tree = trees.tree(name);
    const auto source = tree.source(tree.head().node_id);
    if (!source) {
      out.unjudged.push_back(name + ": its head has no source");
      continue;
    }
    try {
      heads.push_back({name, &kernel_or_fail(catalog, name), artifact_of(name, *source), {}});
    } catch (const std::exception& e) {
      out.unjudged.push_back(fmt::format("{}: {}", name, e.what()));
    }
  }
  std::vector<const KernelContract*> contracts;
  contracts.reserve(heads.size());
  for (const auto& h : heads) contracts.push_back(h.kernel);
  const auto time_heads = [&] {
    bool all = true;
    for (auto& h : heads) {
      h.timing = target.time_side_by_side(*h.kernel, {h.artifact}, kReadings, 1).front();
      all = all && h.timing.ok();
    }
    return all;
  };
  const auto beaten = [&](const targets::FloorFacts& facts) {
    return std::any_of(heads.begin(), heads.end(), [&](const Head& h) {
      const double floor_ms = target.floors(*h.kernel, facts.values).memory_ms;
      return h.timing.ok() && targets::below_floor(h.timing.median_seconds * 1e3 / floor_ms);
    });
  };
  targets::FloorBracketOptions only_memory;
  only_memory.facts = target.memory_floor_facts();
  only_memory.readings = kFloorReadings;
  targets::FloorBracket bracket(target, only_memory);
  auto around = bracket.around(contracts, time_heads, beaten);
  if (!around) return around.error();
  const auto& values = around->facts.values;

  for (const auto& name : kernels) {
    trees::DesignTree& tree = trees.tree(name);
    const trees::KernelRecord record = tree.record();
    const double now = target.floors(kernel_or_fail(catalog, name), values).memory_ms;
    if (record.floor_ms && !(now < *record.floor_ms)) continue;
    tree.set_kernel_times(now, record.baseline_ms);
    trees.forget_figures(name);
    out.lowered.push_back({name, record.floor_ms.value_or(0.0), now});
  }
  for (const auto& h : heads) {
    if (!h.timing.ok()) {
      out.unjudged.push_back(fmt::format("{}: {}", h.name, h.timing.failure));
      continue;
    }
    const JudgedHead j{h.name, h.timing.median_seconds * 1e3,
                       target.floors(*h.kernel, values).memory_ms};
    judged_[h.name] = Judged{trees.head_ms(h.name), j.ratio()};
    out.judged.push_back(j);
  }
  return out;
}

}  // namespace headway::loop
