#include "loop/head_curve.h"

#include <algorithm>
#include <stdexcept>

#include "trees/design_tree.h"

namespace headway::loop {

std::vector<HeadStep> head_curve(store::Workspace& ws, const std::string& kernel) {
  auto tree = trees::DesignTree::open(ws, kernel);
  if (!tree) return {};
  const std::vector<trees::HeadRecord> history = tree.value().head_history();
  if (history.empty() || !history.front().median_ms) return {};
  std::vector<HeadStep> out{{0.0, *history.front().median_ms}};
  for (size_t i = 1; i < history.size(); ++i) {
    if (history[i].device_seconds && history[i].median_ms)
      out.push_back({*history[i].device_seconds, *history[i].median_ms});
  }
  return out;
}

std::optional<double> device_seconds_to_within(const std::vector<std::vector<HeadStep>>& curves,
                                               const std::vector<double>& floors_ms, double ratio) {
  if (curves.size() != floors_ms.size())
    throw std::invalid_argument("device_seconds_to_within: a floor per curve");
  if (curves.empty()) return std::nullopt;
  struct Event {
    double device_seconds;
    size_t kernel;
    double head_ms;
  };
  std::vector<Event> events;
  for (size_t k = 0; k < curves.size(); ++k) {
    if (curves[k].empty()) return std::nullopt;
    for (const HeadStep& s : curves[k]) events.push_back({s.device_seconds, k, s.head_ms});
  }
  std::stable_sort(events.begin(), events.end(), [](const Event& a, const Event& b) {
    return a.device_seconds < b.device_seconds;
  });
  std::vector<bool> within(curves.size(), false);
  for (size_t i = 0; i < events.size(); ++i) {
    const Event& e = events[i];
    within[e.kernel] = e.head_ms <= ratio * floors_ms[e.kernel];
    const bool last_at_this_time =
        i + 1 == events.size() || events[i + 1].device_seconds != e.device_seconds;
    if (last_at_this_time && std::all_of(within.begin(), within.end(), [](bool w) { return w; }))
      return e.device_seconds;
  }
  return std::nullopt;
}

}  // namespace headway::loop
