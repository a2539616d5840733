#include "peers/paired_verdict.h"

#include <fmt/format.h>

#include <stdexcept>

#include "common/stats.h"

namespace headway::peers {

PeersJudgement judge_against_peers(const PairedArm& head, const std::vector<PairedArm>& peers,
                                   double confidence) {
  if (peers.empty()) throw std::invalid_argument("a paired verdict needs at least one peer");
  if (head.bytes == 0) throw std::invalid_argument("the head moves no bytes");
  const double each_confidence = 1.0 - (1.0 - confidence) / static_cast<double>(peers.size());
  PeersJudgement out;
  bool all_below = true, any_above = false;
  for (const PairedArm& peer : peers) {
    if (peer.bytes == 0) throw std::invalid_argument(peer.name + " moves no bytes");
    if (peer.seconds.size() < head.seconds.size())
      throw std::invalid_argument(fmt::format("{} has {} readings where the head has {}", peer.name,
                                              peer.seconds.size(), head.seconds.size()));
    std::vector<double> q;
    q.reserve(head.seconds.size());
    for (size_t r = 0; r < head.seconds.size(); ++r) {
      q.push_back((head.seconds[r] / static_cast<double>(head.bytes)) /
                  (peer.seconds[r] / static_cast<double>(peer.bytes)));
    }
    PairedRatio p{peer.name, median(q), median_interval(q, each_confidence)};
    all_below = all_below && p.interval.high < 1.0;
    any_above = any_above || p.interval.low > 1.0;
    out.each.push_back(std::move(p));
  }
  out.verdict = any_above   ? PeersVerdict::kPeerCloser
                : all_below ? PeersVerdict::kHeadCloser
                            : PeersVerdict::kLevel;
  // The peer the verdict is about: of those that decide it (for kPeerCloser the ones whose
  // interval lies above 1, for kLevel the ones whose interval reaches 1, else all), the one with
  // the largest median.
  const PairedRatio* named = nullptr;
  for (const PairedRatio& p : out.each) {
    const bool decides = out.verdict == PeersVerdict::kPeerCloser ? p.interval.low > 1.0
                         : out.verdict == PeersVerdict::kLevel    ? p.interval.high >= 1.0
                                                                  : true;
    if (decides && (!named || p.median > named->median)) named = &p;
  }
  out.hardest = *named;
  return out;
}

std::string verdict_text(const PeersJudgement& j) {
  switch (j.verdict) {
    case PeersVerdict::kHeadCloser:
      return "the head is closer to its floor than every peer";
    case PeersVerdict::kPeerCloser:
      return fmt::format("{} is closer to its floor than the head", j.hardest.peer);
    case PeersVerdict::kLevel:
      break;
  }
  return fmt::format("level with {} within the rounds' noise", j.hardest.peer);
}

const char* verdict_name(PeersVerdict v) {
  switch (v) {
    case PeersVerdict::kHeadCloser:
      return "closer";
    case PeersVerdict::kPeerCloser:
      return "peer closer";
    case PeersVerdict::kLevel:
      break;
  }
  return "level";
}

}  // namespace headway::peers
