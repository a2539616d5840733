#include "loop/beam.h"

#include <gtest/gtest.h>

#include "loop/loop_kernel_test_support.h"

namespace headway::loop {
namespace {

std::vector<int64_t> ids(const std::vector<trees::Node>& nodes) {
  std::vector<int64_t> out;
  for (const auto& n : nodes) out.push_back(n.id);
  return out;
}

trees::Node node(int64_t id) {
  trees::Node n;
  n.id = id;
  return n;
}

TEST(BeamParents, TheMembersTakeTurnsAndTheHeadFollowsARunnerUp) {
  const std::vector<trees::Node> beam{node(7), node(3), node(5)};  // the head first
  EXPECT_EQ(ids(parents_in_turn(beam, 0)), (std::vector<int64_t>{7}));
  EXPECT_EQ(ids(parents_in_turn(beam, 1)), (std::vector<int64_t>{3, 7}));
  EXPECT_EQ(ids(parents_in_turn(beam, 2)), (std::vector<int64_t>{5, 7}));
  EXPECT_EQ(ids(parents_in_turn(beam, 3)), (std::vector<int64_t>{7}));
  EXPECT_EQ(ids(parents_in_turn(beam, -1)), (std::vector<int64_t>{7}));
  EXPECT_EQ(ids(parents_in_turn({node(7)}, 4)), (std::vector<int64_t>{7}));
}

TEST(BeamParents, ABeamOfOneIsTheHeadAloneAndAnUnmeasuredTreeHasNoRunnersUp) {
  LoopKernel k;
  const int64_t head = k.head().id;
  k.add("unmeasured", "time: 0.5\n");  // proposed: never measured, so never in the beam
  EXPECT_EQ(ids(beam_parents(k.ws(), k.tree(), 1, 1)), (std::vector<int64_t>{head}));
  EXPECT_EQ(ids(beam_parents(k.ws(), k.tree(), 3, 1)), (std::vector<int64_t>{head}));
}

}  // namespace
}  // namespace headway::loop
