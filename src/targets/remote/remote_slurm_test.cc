// The cpu target's paired device on a real Slurm cluster on this machine
// (pool/slurm_cluster_test_support.h), with the faults a cluster has in the middle of a job of
// pairs: the worker's allocation cancelled, its node set down. The pool runs the job again on
// another worker, and the acceptance test loses no pair and reads none twice.
#include <gtest/gtest.h>
#include <stdlib.h>

#include <fstream>
#include <thread>

#include "common/subprocess.h"
#include "pool/slurm_cluster_test_support.h"
#include "pool/slurm_launcher.h"
#include "pool/worker_pool.h"
#include "targets/cpu/cpu_target.h"
#include "targets/cpu/host_abi.h"

namespace headway::remote {
namespace {

namespace fs = std::filesystem;
using pool::testing::SlurmCluster;
using statistics::Arm;

// The Slurm job of a `headway device-job` process running now, or "".
std::string job_running_a_device_job() {
  for (const auto& p : fs::directory_iterator("/proc")) {
    std::ifstream cmdline(p.path() / "cmdline");
    std::string args((std::istreambuf_iterator<char>(cmdline)), {});
    if (args.find(std::string("device-job") + '\0') == std::string::npos) continue;
    std::ifstream environ(p.path() / "environ");
    std::string env((std::istreambuf_iterator<char>(environ)), {});
    const size_t at = env.find("SLURM_JOB_ID=");
    if (at == std::string::npos) continue;
    return env.substr(at + 13, env.find('\0', at) - at - 13);
  }
  return "";
}

class RemoteSlurm : public ::testing::Test {
 protected:
  void SetUp() override {
    if (const std::string why = SlurmCluster::unavailable_reason(); !why.empty())
      GTEST_SKIP() << why;
    setenv("HEADWAY_DEVICE_JOB_BINARY", HEADWAY_BINARY, 1);
    cluster_ = std::make_unique<SlurmCluster>(4);
    pool::SlurmOptions slurm;
    slurm.partition = "dev";
    slurm.folder = cluster_->folder() / "pool";
    pool::WorkerPoolOptions o;
    o.workers = 2;
    o.advertise_host = "127.0.0.1";
    o.folder = slurm.folder;
    o.headway_binary = HEADWAY_BINARY;
    o.ping_seconds = 1;
    o.poll_seconds = 0.5;
    o.lease_seconds = 20;
    auto p = pool::WorkerPool::start(std::make_unique<pool::SlurmLauncher>(slurm), o);
    ASSERT_TRUE(p) << p.error().message;
    pool_ = std::shared_ptr<pool::WorkerPool>(std::move(*p));
    ASSERT_TRUE(pool_->wait_for_workers(2, 60));
    target_.use_pool(pool_);
    const auto b =
        target_.build(std::string(cpu::host_abi(*builtin_kernel("qkv")).baseline_source()),
                      cluster_->folder() / "builds");
    ASSERT_TRUE(b.built()) << b.diagnostics;
    baseline_ = b.artifact;
  }
  void TearDown() override {
    if (pool_) pool_->close();
    pool_.reset();
    cluster_.reset();
    unsetenv("HEADWAY_DEVICE_JOB_BINARY");
  }

  // Eight pairs prepared at once (two jobs, one a worker) while `fault` hits the Slurm job of a
  // worker in the middle of its job: every pair comes back, in order, once.
  void expect_no_pair_lost(const std::function<void(const std::string& job)>& fault) {
    auto device = target_.paired_device(*builtin_kernel("qkv"), baseline_, baseline_, 3);
    ASSERT_TRUE(device) << device.error().message;
    auto& d = *device.value();
    const std::vector<Arm> firsts = {Arm::kHead,      Arm::kCandidate, Arm::kHead, Arm::kHead,
                                     Arm::kCandidate, Arm::kCandidate, Arm::kHead, Arm::kCandidate};
    std::thread prepare([&] { d.prepare_pairs(firsts); });
    std::string job;
    for (int i = 0; i < 3000 && job.empty(); ++i) {
      std::this_thread::sleep_for(std::chrono::milliseconds(10));
      job = job_running_a_device_job();
    }
    EXPECT_FALSE(job.empty()) << "no device job was seen running";
    if (!job.empty()) fault(job);
    prepare.join();
    const int64_t jobs_before = pool_->stats().jobs;
    for (Arm first : firsts) {
      d.begin_pair();
      nlohmann::json clock;
      EXPECT_GT(d.run_once(first, &clock), 0.0);
      EXPECT_GT(d.run_once(statistics::other(first), &clock), 0.0);
    }
    EXPECT_EQ(pool_->stats().jobs, jobs_before) << "every pair was read from the two jobs";
    EXPECT_EQ(pool_->stats().jobs, 2);
    EXPECT_GE(pool_->stats().retried, 1);
    EXPECT_GE(pool_->stats().workers_lost, 1);
    EXPECT_NO_THROW(d.verify_arms());
  }

  std::unique_ptr<SlurmCluster> cluster_;
  std::shared_ptr<pool::WorkerPool> pool_;
  cpu::CpuTarget target_;
  targets::Artifact baseline_;
};

TEST_F(RemoteSlurm, AWorkerCancelledMidPairsLosesNoPair) {
  expect_no_pair_lost([](const std::string& job) { (void)run_process({"scancel", job}, 30); });
}

TEST_F(RemoteSlurm, ANodeSetDownMidPairsLosesNoPair) {
  expect_no_pair_lost(
      [this](const std::string& job) { cluster_->set_node_down(cluster_->node_of(job)); });
}

}  // namespace
}  // namespace headway::remote
