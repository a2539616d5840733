// The device model of a head's figure, from what a real workspace recorded: a head timing's
// model, the clocks of the readings of the test that made the head, or this machine's device.
#include "knowledge/head_model.h"

#include <gtest/gtest.h>

#include "knowledge/kernel_timings.h"
#include "targets/registry/test_targets.h"
#include "trees/tree_test_support.h"

namespace headway::knowledge {
namespace {

class HeadModel : public ::testing::Test, public trees::TreeFixture {
 protected:
  // Makes a new node head through a FASTER test whose readings carry `clock`.
  void head_by_test(const nlohmann::json& clock) {
    const trees::Node candidate =
        add(trees::NodeKind::kDesign, std::nullopt, "tiled" + std::to_string(++nodes_));
    const int64_t test = log_.begin_test(candidate.id, "betting").value();
    const int64_t head = tree().head().node_id;
    for (int p = 0; p < 2; ++p) {
      for (int pos = 0; pos < 2; ++pos) {
        trees::TestReading r;
        r.node_id = pos == 0 ? head : candidate.id;
        r.pair_index = p;
        r.position = pos;
        r.seconds = pos == 0 ? 1e-3 : 5e-4;
        r.clock = clock;
        ASSERT_TRUE(log_.record_reading(test, r).ok());
      }
    }
    trees::TestDecision d;
    d.outcome = statistics::Outcome::kFaster;
    d.pairs = 2;
    ASSERT_TRUE(log_.finish_test(test, d).ok());
  }
  std::string model() { return head_device_model(ws(), tree(), log_, "tc", *target_); }

  trees::DecisionLog log_{tree()};
  std::unique_ptr<targets::Target> target_ = targets::make_test_target("test-1:models=local-gpu");
  int nodes_ = 0;
};

TEST_F(HeadModel, TheBaselineHeadIsReadOnThisMachinesDeviceUnlessAPoolIsRecorded) {
  EXPECT_EQ(model(), "local-gpu");
  ws().set_meta("pool", R"({"kind": "local"})");
  EXPECT_EQ(model(), "local-gpu");
  ws().set_meta("pool", R"({"kind": "slurm", "workers": 2})");
  EXPECT_EQ(model(), "") << "a pool's registration timing recorded no model";
}

TEST_F(HeadModel, AHeadMadeByATestHasTheModelItsPoolReadingsRecorded) {
  head_by_test({{"job", 0}, {"position", 0}, {"worker", "w2"}, {"model", "NVIDIA H200"}});
  EXPECT_EQ(model(), "NVIDIA H200");
  head_by_test({{"job", 0}, {"position", 0}, {"worker", "w1"}, {"model", ""}});
  EXPECT_EQ(model(), "") << "a pool whose devices name no model";
  head_by_test(nullptr);
  EXPECT_EQ(model(), "local-gpu") << "readings without a worker were read on this machine";
}

TEST_F(HeadModel, AHeadTimingsModelComesBeforeTheTestsReadings) {
  head_by_test({{"worker", "w2"}, {"model", "NVIDIA H200"}});
  KernelTiming t;
  t.kernel = "qkv";
  t.toolchain = "tc";
  t.node_id = tree().head().node_id;
  t.role = kHeadRole;
  t.median_ms = 0.4;
  t.readings = 3;
  t.device_model = "NVIDIA H100 80GB HBM3";
  record_kernel_timing(ws(), t);
  EXPECT_EQ(latest_kernel_timing(ws(), "qkv", "tc", kHeadRole)->device_model,
            "NVIDIA H100 80GB HBM3")
      << "stored and read back";
  EXPECT_EQ(model(), "NVIDIA H100 80GB HBM3");
  EXPECT_EQ(head_device_model(ws(), tree(), log_, "another toolchain", *target_), "NVIDIA H200")
      << "a timing of another toolchain is not the head's figure";
}

}  // namespace
}  // namespace headway::knowledge
