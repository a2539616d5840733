// The cpu target's paired device on a real Slurm cluster on this machine
// (pool/slurm_cluster_test_support.h), with the faults a cluster has in the middle of a job of
// pairs: the worker's allocation cancelled, its node set down. The pool runs the job again on
// another worker, and the acceptance test loses no pair and reads none twice.
#include <gtest/gtest.h>
#include <stdlib.h>

#include <algorithm>
#include <cstdlib>
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

// The value of `name` in a NUL-separated environment block, or "".
std::string env_value(const std::string& env, const std::string& name) {
  const std::string key = name + "=";
  for (size_t at = 0; at < env.size();) {
    const size_t end = std::min(env.find('\0', at), env.size());
    if (env.compare(at, key.size(), key) == 0)
      return env.substr(at + key.size(), end - at - key.size());
    at = end + 1;
  }
  return "";
}

// The Slurm job of a `headway device-job` process of this test's cluster running now, or "": its
// SLURM_CONF is this process's (other tests run clusters of their own beside it, whose job ids
// are alike).
std::string job_running_a_device_job() {
  const char* conf = std::getenv("SLURM_CONF");
  std::error_code ec;
  for (fs::directory_iterator it("/proc", ec), end; !ec && it != end; it.increment(ec)) {
    std::ifstream cmdline(it->path() / "cmdline");
    std::string args((std::istreambuf_iterator<char>(cmdline)), {});
    if (args.find(std::string("device-job") + '\0') == std::string::npos) continue;
    std::ifstream environ(it->path() / "environ");
    std::string env((std::istreambuf_iterator<char>(environ)), {});
    if (!conf || env_value(env, "SLURM_CONF") != conf) continue;
    if (std::string job = env_value(env, "SLURM_JOB_ID"); !job.empty()) return job;
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
    try {
      if (!job.empty()) fault(job);
    } catch (const std::exception& e) {
      ADD_FAILURE() << "the fault did not happen: " << e.what();
    }
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
  expect_no_pair_lost([this](const std::string& job) {
    std::string node;
    for (int i = 0; i < 50 && node.empty(); ++i) {
      node = cluster_->node_of(job);
      if (node.empty()) std::this_thread::sleep_for(std::chrono::milliseconds(100));
    }
    cluster_->set_node_down(node);
  });
}

}  // namespace
}  // namespace headway::remote
