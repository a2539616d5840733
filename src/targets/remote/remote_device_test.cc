// The cpu target's device work through a pool of two workers started as processes of the test
// (the way Slurm starts them on nodes): each job is a real `headway device-job` process that
// makes the cpu target, runs the piece with the target's own code and replies. The replies'
// formats, and requests that are wrong, are tested on their own.
#include "targets/remote/remote_device.h"

#include <gtest/gtest.h>
#include <stdlib.h>

#include <set>

#include "cli/cli_test_support.h"
#include "knowledge/facts.h"
#include "pool/process_launcher_test_support.h"
#include "pool/worker_launcher.h"
#include "pool/worker_pool.h"
#include "store/test_temp_dir.h"
#include "targets/cpu/cpu_target.h"
#include "targets/cpu/host_abi.h"
#include "targets/fact_names.h"
#include "targets/remote/device_job.h"

namespace headway::remote {
namespace {

namespace fs = std::filesystem;
using statistics::Arm;
using targets::CheckOutcome;

const KernelContract& attn_out() { return *builtin_kernel("attn_out"); }

// The attn_out baseline with `from` replaced by `to`.
std::string mutated(const std::string& from, const std::string& to) {
  std::string s(cpu::host_abi(attn_out()).baseline_source());
  const size_t at = s.find(from);
  EXPECT_NE(at, std::string::npos) << from;
  if (at != std::string::npos) s.replace(at, from.size(), to);
  return s;
}

constexpr const char* kResidualSum = "hw::f32_to_bf16(hw::bf16_to_f32(a->residual[r]) + normed)";

// A cpu target whose device work goes to two workers on this machine.
class RemoteCpu : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    setenv("HEADWAY_DEVICE_JOB_BINARY", HEADWAY_BINARY, 1);
    dir_ = new store::TestTempDir;
    processes_ =
        new std::shared_ptr<pool::testing::Processes>(std::make_shared<pool::testing::Processes>());
    pool::WorkerPoolOptions o;
    o.workers = 2;
    o.advertise_host = "127.0.0.1";
    o.bind_host = "127.0.0.1";
    o.folder = dir_->path() / "pool";
    o.headway_binary = HEADWAY_BINARY;
    o.lease_seconds = 60;
    o.status_file = dir_->path() / "pool" / "status.json";
    auto started =
        pool::WorkerPool::start(std::make_unique<pool::testing::ProcessLauncher>(*processes_), o);
    ASSERT_TRUE(started) << started.error().message;
    pool_ = new std::shared_ptr<pool::DevicePool>(std::move(*started));
    target_ = new cpu::CpuTarget;
    target_->use_pool(*pool_);
    baseline_ = new targets::Artifact(built(cpu::host_abi(attn_out()).baseline_source()));
  }
  static void TearDownTestSuite() {
    (*pool_)->close();
    delete target_;
    delete pool_;
    delete processes_;
    delete baseline_;
    delete dir_;
    unsetenv("HEADWAY_DEVICE_JOB_BINARY");
  }
  static targets::Artifact built(const std::string& source) {
    const auto b = target_->build(source, dir_->path() / "builds");
    EXPECT_TRUE(b.built()) << b.diagnostics;
    return b.artifact;
  }
  // The workers that ran jobs so far.
  static std::set<std::string> busy_workers() {
    std::set<std::string> out;
    for (const auto& w : (*pool_)->workers()) {
      if (w.jobs > 0) out.insert(w.name);
    }
    return out;
  }

  static store::TestTempDir* dir_;
  static std::shared_ptr<pool::testing::Processes>* processes_;
  static std::shared_ptr<pool::DevicePool>* pool_;
  static cpu::CpuTarget* target_;
  static targets::Artifact* baseline_;
};

store::TestTempDir* RemoteCpu::dir_ = nullptr;
std::shared_ptr<pool::testing::Processes>* RemoteCpu::processes_ = nullptr;
std::shared_ptr<pool::DevicePool>* RemoteCpu::pool_ = nullptr;
cpu::CpuTarget* RemoteCpu::target_ = nullptr;
targets::Artifact* RemoteCpu::baseline_ = nullptr;

TEST_F(RemoteCpu, TheTimingIsOnTheNodesAndChecksTellRightFromWrong) {
  EXPECT_FALSE(target_->times_on_host());
  targets::CheckOptions options;
  options.seed = 7;
  const CheckOutcome right = target_->check(attn_out(), *baseline_, options);
  EXPECT_EQ(right.status, CheckOutcome::Status::kCorrect) << right.description;
  EXPECT_EQ(right.seed, 7u);

  const targets::Artifact zeros = built(mutated(kResidualSum, "0"));
  const CheckOutcome wrong = target_->check(attn_out(), zeros, options);
  EXPECT_EQ(wrong.status, CheckOutcome::Status::kIncorrect);
  EXPECT_FALSE(wrong.description.empty());
  EXPECT_EQ(wrong.details["violation"]["got"], 0.0) << wrong.details.dump();
}

TEST_F(RemoteCpu, PairsRunOnBothDevicesInTheOrdersGivenAndCountVerifiedCalls) {
  auto device = target_->paired_device(attn_out(), *baseline_, *baseline_, 11);
  ASSERT_TRUE(device) << device.error().message;
  auto& d = *device.value();
  EXPECT_EQ(d.pairs_at_once(), 2 * RemoteOptions{}.pairs_per_job);
  const std::vector<Arm> firsts = {Arm::kHead,      Arm::kCandidate, Arm::kCandidate, Arm::kHead,
                                   Arm::kCandidate, Arm::kHead,      Arm::kHead,      Arm::kHead};
  d.prepare_pairs(firsts);
  std::set<std::string> workers;
  for (Arm first : firsts) {
    d.begin_pair();
    nlohmann::json clock;
    const double a = d.run_once(first, &clock);
    workers.insert(clock["worker"].get<std::string>());
    const double b = d.run_once(statistics::other(first), &clock);
    EXPECT_GT(a, 0.0);
    EXPECT_GT(b, 0.0);
    EXPECT_LT(a, 1.0);
  }
  EXPECT_EQ(workers.size(), 2u) << "two jobs of four pairs, one on each device";
  EXPECT_NO_THROW(d.verify_arms());
  EXPECT_GT(d.verified_calls(Arm::kCandidate), 0);
  EXPECT_GT(d.accounting().value("jobs", 0.0), 1.0);
  EXPECT_EQ(busy_workers().size(), 2u);
}

// Right in its first calls, wrong in every third after: the job's verification catches it and the
// pair that reaches it disqualifies the candidate (or verify_arms does, if none reaches it).
TEST_F(RemoteCpu, ACandidateWrongInSomeCallsIsDisqualified) {
  std::string source =
      mutated(kResidualSum,
              "(++hw_calls % 3 == 0 ? hw::f32_to_bf16(0.0f) : " + std::string(kResidualSum) + ")");
  const size_t at = source.find("extern \"C\" void hw_attn_out(");
  ASSERT_NE(at, std::string::npos);
  source.insert(at, "static int hw_calls = 0;\n");
  const targets::Artifact wrong = built(source);
  auto device = target_->paired_device(attn_out(), *baseline_, wrong, 5);
  ASSERT_TRUE(device) << device.error().message;
  auto& d = *device.value();
  bool disqualified = false;
  try {
    d.prepare_pairs(std::vector<Arm>(8, Arm::kHead));
    for (int i = 0; i < 8; ++i) {
      d.begin_pair();
      nlohmann::json clock;
      d.run_once(Arm::kHead, &clock);
      d.run_once(Arm::kCandidate, &clock);
    }
    d.verify_arms();
  } catch (const statistics::ArmDisqualified& e) {
    disqualified = true;
    EXPECT_EQ(e.arm(), Arm::kCandidate) << e.what();
    EXPECT_NE(std::string(e.what()).find("(on w"), std::string::npos) << e.what();
  }
  EXPECT_TRUE(disqualified);
}

TEST_F(RemoteCpu, ASessionReadsEveryArmThroughJobsAndSideBySideTimesThem) {
  auto session = target_->start_session(attn_out(), {*baseline_, *baseline_}, 3);
  ASSERT_TRUE(session) << session.error().message;
  for (int i = 0; i < 8; ++i) {
    auto r = (*session)->reading(i % 2);
    ASSERT_TRUE(r) << r.error().message;
    EXPECT_GT(r.value(), 0.0);
  }
  EXPECT_FALSE((*session)->verify_arms());
  EXPECT_GE((*session)->accounting().value("jobs", 0.0), 2.0);

  const auto timings = target_->time_side_by_side(attn_out(), {*baseline_, *baseline_}, 3, 9);
  ASSERT_EQ(timings.size(), 2u);
  for (const auto& t : timings) {
    EXPECT_TRUE(t.ok()) << t.failure;
    EXPECT_EQ(t.seconds.size(), 3u);
    EXPECT_GT(t.median_seconds, 0.0);
  }
}

TEST_F(RemoteCpu, AWrongArmInARaceIsOutWithItsBreach) {
  const targets::Artifact zeros = built(mutated(kResidualSum, "0"));
  auto session = target_->start_session(attn_out(), {*baseline_, zeros}, 4);
  ASSERT_TRUE(session) << session.error().message;
  auto first = (*session)->reading(0);
  ASSERT_TRUE(first) << first.error().message;
  EXPECT_FALSE((*session)->reading(1));
  const auto breach = (*session)->verify_arm(1);
  ASSERT_TRUE(breach);
  EXPECT_EQ(breach->arm, 1);
  EXPECT_FALSE((*session)->verify_arm(0));
}

// Workers started as ProcessLauncher does, the first of every two on a device of model "model-a",
// the other on "model-b" ($HEADWAY_DEVICE_MODEL on the node).
class TwoModelsLauncher final : public pool::WorkerLauncher {
 public:
  explicit TwoModelsLauncher(std::shared_ptr<pool::testing::Processes> processes)
      : inner_(std::move(processes)) {}
  std::string kind() const override { return "processes"; }
  Result<std::string> start(const std::vector<std::string>& argv,
                            const std::string& name) override {
    std::vector<std::string> wrapped = {
        "/usr/bin/env", std::string("HEADWAY_DEVICE_MODEL=model-") + (started_++ % 2 ? "b" : "a")};
    wrapped.insert(wrapped.end(), argv.begin(), argv.end());
    return inner_.start(wrapped, name);
  }
  void stop(const std::vector<std::string>& ids) override { inner_.stop(ids); }
  Result<std::map<std::string, pool::LaunchedWorker>> poll(
      const std::vector<std::string>& ids) override {
    return inner_.poll(ids);
  }

 private:
  pool::testing::ProcessLauncher inner_;
  int started_ = 0;
};

// A cpu target on a pool of two workers, one of model-a and one of model-b.
class RemoteCpuTwoModels : public ::testing::Test {
 protected:
  void SetUp() override {
    setenv("HEADWAY_DEVICE_JOB_BINARY", HEADWAY_BINARY, 1);
    pool::WorkerPoolOptions o;
    o.workers = 2;
    o.advertise_host = "127.0.0.1";
    o.bind_host = "127.0.0.1";
    o.folder = dir.path() / "pool";
    o.headway_binary = HEADWAY_BINARY;
    o.lease_seconds = 60;
    auto started = pool::WorkerPool::start(std::make_unique<TwoModelsLauncher>(processes_), o);
    ASSERT_TRUE(started) << started.error().message;
    devices = std::move(*started);
    ASSERT_TRUE(devices->wait_for_workers(2, 60));
    target.use_pool(devices);
  }
  void TearDown() override {
    if (devices) devices->close();
    unsetenv("HEADWAY_DEVICE_JOB_BINARY");
  }

  store::TestTempDir dir;
  std::shared_ptr<pool::testing::Processes> processes_ =
      std::make_shared<pool::testing::Processes>();
  std::shared_ptr<pool::WorkerPool> devices;
  cpu::CpuTarget target;
};

// A pool of two models: every pair of a test, and every reading of a race, comes from devices of
// one model, whichever device took the test's first job.
TEST_F(RemoteCpuTwoModels, ATestsPairsAndARacesReadingsKeepToOneModel) {
  const auto b = target.build(cpu::host_abi(attn_out()).baseline_source(), dir.path() / "builds");
  ASSERT_TRUE(b.built()) << b.diagnostics;

  auto device = target.paired_device(attn_out(), b.artifact, b.artifact, 2);
  ASSERT_TRUE(device) << device.error().message;
  auto& d = *device.value();
  const std::vector<Arm> firsts(8, Arm::kCandidate);
  d.prepare_pairs(firsts);
  std::set<std::string> workers;
  for (Arm first : firsts) {
    d.begin_pair();
    nlohmann::json clock;
    d.run_once(first, &clock);
    workers.insert(clock["worker"].get<std::string>());
    d.run_once(statistics::other(first), &clock);
  }
  EXPECT_EQ(workers.size(), 1u) << "both of the test's jobs on the one worker of its model";
  nlohmann::json clock;
  d.begin_pair();
  d.run_once(Arm::kHead, &clock);
  EXPECT_TRUE(clock["model"] == "model-a" || clock["model"] == "model-b") << clock.dump();

  auto session = target.start_session(attn_out(), {b.artifact, b.artifact}, 6);
  ASSERT_TRUE(session) << session.error().message;
  for (int i = 0; i < 6; ++i) ASSERT_TRUE((*session)->reading(i % 2));
  devices->close();
  int64_t jobs = 0;
  for (const auto& w : devices->workers()) jobs += w.jobs;
  EXPECT_GT(jobs, 4) << "jobs taken by the other model were refused there and run again";
}

// A pool of two models tells its models, measures chip facts on each model it is asked for, and
// says which model a side-by-side timing was read on.
TEST_F(RemoteCpuTwoModels, FactsArePinnedToAModelAndTimingsNameTheirs) {
  EXPECT_EQ(target.device_models(), (std::vector<std::string>{"model-a", "model-b"}));

  // Measured once per model, a facts job pinned to each, each set stored under its model.
  auto ws = store::Workspace::create(dir.path() / "ws").value();
  targets::FactOptions options;
  options.only = {targets::kReadBandwidth};
  options.readings = 3;
  options.noise_repeats = 1;
  knowledge::measure_and_store_facts(ws, target, "tc", options);
  EXPECT_EQ(knowledge::fact_models(ws, "tc"), (std::vector<std::string>{"model-a", "model-b"}));
  for (const char* model : {"model-a", "model-b"}) {
    const auto fact = knowledge::find_fact(ws, targets::kReadBandwidth, "tc", model);
    ASSERT_TRUE(fact) << model;
    EXPECT_EQ(fact->device_model, model);
  }
  options.model = "model-z";
  try {
    target.measure_facts(options);
    ADD_FAILURE() << "no device of model-z";
  } catch (const std::invalid_argument& e) {
    EXPECT_NE(std::string(e.what()).find("'model-z'"), std::string::npos) << e.what();
  }

  const auto b = target.build(cpu::host_abi(attn_out()).baseline_source(), dir.path() / "builds");
  ASSERT_TRUE(b.built()) << b.diagnostics;
  const auto timings = target.time_side_by_side(attn_out(), {b.artifact}, 3, 1);
  ASSERT_TRUE(timings.front().ok()) << timings.front().failure;
  EXPECT_TRUE(timings.front().device_model == "model-a" ||
              timings.front().device_model == "model-b")
      << timings.front().device_model;
}

TEST(DeviceJob, OutcomesTimingsFactsAndArtifactsSurviveTheirJson) {
  for (auto status : {CheckOutcome::Status::kCorrect, CheckOutcome::Status::kIncorrect,
                      CheckOutcome::Status::kCrashed, CheckOutcome::Status::kTimedOut,
                      CheckOutcome::Status::kUnloadable, CheckOutcome::Status::kCheated}) {
    CheckOutcome c;
    c.status = status;
    c.kind = "k";
    c.seed = 99;
    c.description = "why";
    c.details = {{"x", 1}};
    c.seconds = 0.5;
    const CheckOutcome back = check_from_json(check_to_json(c));
    EXPECT_EQ(back.status, status);
    EXPECT_EQ(back.seed, 99u);
    EXPECT_EQ(back.description, "why");
    EXPECT_EQ(back.details, c.details);
  }
  EXPECT_THROW(check_from_json({{"status", "great"}}), std::invalid_argument);

  targets::Timing t;
  t.failure = "no";
  t.cheated = true;
  t.seconds = {1.0, 2.0};
  t.median_seconds = 1.5;
  const targets::Timing tb = timing_from_json(timing_to_json(t));
  EXPECT_EQ(tb.seconds, t.seconds);
  EXPECT_TRUE(tb.cheated);
  EXPECT_EQ(tb.failure, "no");

  const targets::ChipFact f{"read_bandwidth", 9.5, "GB/s", 1.5, "stream"};
  const targets::ChipFact fb = fact_from_json(fact_to_json(f));
  EXPECT_EQ(fb.name, f.name);
  EXPECT_EQ(fb.spread, f.spread);
  const targets::Artifact a{"id1", "/x/y.so", {{"k", 2}}};
  const targets::Artifact ab = artifact_from_json(artifact_to_json(a));
  EXPECT_EQ(ab.path, a.path);
  EXPECT_EQ(ab.meta, a.meta);
  EXPECT_EQ(kernel_to_json(attn_out()), nlohmann::json({{"name", "attn_out"}}));
}

TEST(DeviceJob, AWrongRequestIsRefusedWithWhatIsWrong) {
  cpu::CpuTarget target;
  EXPECT_THROW(run_device_job(target, &attn_out(), {{"op", "dance"}}), std::invalid_argument);
  EXPECT_THROW(run_device_job(target, nullptr, {{"op", "check"}}), std::invalid_argument);
  EXPECT_THROW(run_device_job(target, &attn_out(), {{"op", "check"}, {"artifacts", {}}}),
               std::invalid_argument);
  // Through the verb: exit 2 and one line naming the problem.
  const auto bad = cli::run_split(HEADWAY_BINARY, {"device-job", "--request", "[1]"});
  EXPECT_EQ(bad.exit_code, 2);
  EXPECT_NE(bad.err.find("not a JSON object"), std::string::npos) << bad.err;
  const auto sim =
      cli::run_split(HEADWAY_BINARY, {"device-job", "--request", R"({"target":"sim"})"});
  EXPECT_EQ(sim.exit_code, 2);
  EXPECT_NE(sim.err.find("cpu and cuda"), std::string::npos) << sim.err;
  const auto unknown = cli::run_split(
      HEADWAY_BINARY,
      {"device-job", "--request", R"({"target":"cpu","op":"check","kernel":{"name":"nope"}})"});
  EXPECT_EQ(unknown.exit_code, 2);
  EXPECT_NE(unknown.err.find("unknown kernel 'nope'"), std::string::npos) << unknown.err;
}

TEST(DeviceJob, TheModelOpNamesTheNodesModelAndRunsNothing) {
  cpu::CpuTarget target;
  const auto reply = run_device_job(target, nullptr, {{"op", "model"}});
  EXPECT_FALSE(reply.contains("error")) << reply.dump();
  EXPECT_EQ(reply["device"]["model"], target.device_model());
  const auto pinned = run_device_job(target, nullptr, {{"op", "model"}, {"model", "model-z"}});
  EXPECT_TRUE(pinned.value("other_model", false)) << pinned.dump();
}

}  // namespace
}  // namespace headway::remote
