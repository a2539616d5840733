#include "loop/slow_designs.h"

#include <fmt/format.h>

#include <optional>
#include <set>

namespace headway::loop {

namespace {

struct Timed {
  double ratio = 0.0;  // the node's time over the head's
  int64_t node = 0;
  std::string how;
};

// How a node was timed against the head, where it was.
std::optional<Timed> timed_against_head(const trees::Node& n) {
  const nlohmann::json& e = n.evidence;
  if (!e.is_object()) return std::nullopt;
  // A race's losers against its winner, read in the same spell.
  if (n.status == trees::NodeStatus::kRacedOut && e.contains("race_median_ms") &&
      e["race_median_ms"].is_number() && e.contains("winner_median_ms") &&
      e["winner_median_ms"].is_number() && e["winner_median_ms"].get<double>() > 0.0) {
    const double ms = e["race_median_ms"].get<double>();
    const double winner = e["winner_median_ms"].get<double>();
    return Timed{
        ms / winner, n.id,
        fmt::format("a race's median, {:.3f} ms against its winner's {:.3f} ms", ms, winner)};
  }
  if (n.status == trees::NodeStatus::kSlower && e.contains("effect_pct") &&
      e["effect_pct"].is_number()) {
    const double effect = e["effect_pct"].get<double>();
    return Timed{1.0 - effect / 100.0, n.id,
                 fmt::format("an acceptance test's SLOWER, effect {:.1f}%", effect)};
  }
  return std::nullopt;
}

}  // namespace

std::map<std::string, std::string> slow_designs(const std::vector<trees::Node>& nodes,
                                                const std::string& head_design) {
  std::map<std::string, std::string> out;
  std::map<std::string, Timed> best;  // per design, its fastest timed node
  std::set<std::string> close;        // designs with a node judged near or past a head
  for (const trees::Node& n : nodes) {
    if (n.kind == trees::NodeKind::kBaseline || n.design == head_design) continue;
    if (n.status == trees::NodeStatus::kAccepted || n.status == trees::NodeStatus::kSame ||
        n.status == trees::NodeStatus::kInconclusive) {
      close.insert(n.design);
      continue;
    }
    const auto timed = timed_against_head(n);
    if (!timed) continue;
    auto [at, fresh] = best.try_emplace(n.design, *timed);
    if (!fresh && timed->ratio < at->second.ratio) at->second = *timed;
  }
  for (const auto& [design, t] : best) {
    if (close.count(design) || t.ratio < kSlowDesignRatio) continue;
    out[design] =
        fmt::format("its best node, {}, read {:.1f}x the fastest ({})", t.node, t.ratio, t.how);
  }
  return out;
}

}  // namespace headway::loop
