#pragma once
// Whether a head is closer to its floor than the peers, judged round by round. `bench --peers`
// takes one reading of every arm a round, so the rounds pair the arms: in round r the head's
// ratio to its floor over a peer's to its own is
//   q_r = (head_seconds_r / head_bytes) / (peer_seconds_r / peer_bytes)
// (both floors come from one read bandwidth, which cancels). A spell that slows every stream for
// a few rounds moves both readings of those rounds and leaves q_r, where the medians of the two
// arms taken apart can land in different spells. q_r below 1: the head streams its bytes faster
// than the peer streams its own.
#include <cstdint>
#include <string>
#include <vector>

#include "common/median_interval.h"

namespace headway::peers {

struct PairedArm {
  std::string name;
  uint64_t bytes = 0;
  std::vector<double> seconds;  // one reading a round, in round order
};

// The head against one peer: the median of q_r over the rounds both were read, and its interval.
struct PairedRatio {
  std::string peer;
  double median = 0.0;
  MedianInterval interval;
};

enum class PeersVerdict {
  kHeadCloser,  // every peer's interval lies below 1
  kLevel,       // neither: the rounds do not tell them apart
  kPeerCloser,  // some peer's interval lies above 1
};

struct PeersJudgement {
  PeersVerdict verdict = PeersVerdict::kLevel;
  // The peer the verdict is about, the one with the largest median of those that decide it: for
  // kHeadCloser every peer, for kLevel those whose interval reaches 1, for kPeerCloser those
  // whose interval lies above 1.
  PairedRatio hardest;
  std::vector<PairedRatio> each;  // every peer, in the order given
};

// Judges `head` against every peer, each interval at confidence 1 - (1 - confidence) / peers so
// that all hold together with probability at least `confidence`. Throws std::invalid_argument
// where there are no peers, a peer has no reading in a round the head has, or bytes are zero.
PeersJudgement judge_against_peers(const PairedArm& head, const std::vector<PairedArm>& peers,
                                   double confidence = 0.95);

// "the head is closer to its floor than every peer", "level with PEER within the rounds' noise",
// "PEER is closer to its floor than the head".
std::string verdict_text(const PeersJudgement& j);
// "closer", "level", "peer closer".
const char* verdict_name(PeersVerdict v);

}  // namespace headway::peers
