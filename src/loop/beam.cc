#include "loop/beam.h"

#include <algorithm>
#include <map>
#include <utility>

#include "common/stats.h"

namespace headway::loop {

std::vector<trees::Node> beam_runners_up(store::Workspace& ws, const trees::DesignTree& tree,
                                         int count) {
  if (count <= 0) return {};
  const int64_t head = tree.head().node_id;
  store::Statement s = ws.db().prepare(
      "SELECT r.node_id, r.seconds FROM readings r JOIN nodes n ON n.id = r.node_id "
      "WHERE n.kernel = ?1 AND n.id != ?2 AND n.status IN "
      "('raced-out', 'slower', 'same', 'inconclusive', 'accepted')");
  s.bind(1, tree.kernel()).bind(2, head);
  std::map<int64_t, std::vector<double>> readings;
  while (s.step()) readings[s.int64(0)].push_back(s.real(1));
  std::vector<std::pair<double, int64_t>> ranked;
  for (const auto& [node, seconds] : readings) ranked.emplace_back(median(seconds), node);
  std::sort(ranked.begin(), ranked.end());
  std::vector<trees::Node> out;
  for (const auto& [seconds, id] : ranked) {
    if (static_cast<int>(out.size()) >= count) break;
    if (auto n = tree.node(id)) out.push_back(std::move(*n));
  }
  return out;
}

}  // namespace headway::loop
