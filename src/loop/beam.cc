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

std::vector<trees::Node> parents_in_turn(const std::vector<trees::Node>& beam, int rounds_before) {
  const trees::Node& head = beam.front();
  const trees::Node& turn = beam[static_cast<size_t>(std::max(0, rounds_before)) % beam.size()];
  if (turn.id == head.id) return {head};
  return {turn, head};
}

std::vector<trees::Node> beam_parents(store::Workspace& ws, const trees::DesignTree& tree,
                                      int beam_size, int rounds_before) {
  const trees::Node head = *tree.node(tree.head().node_id);
  if (beam_size <= 1) return {head};
  std::vector<trees::Node> beam{head};
  for (auto& n : beam_runners_up(ws, tree, beam_size - 1)) beam.push_back(std::move(n));
  return parents_in_turn(beam, rounds_before);
}

}  // namespace headway::loop
