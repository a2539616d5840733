#include "pool/pool_job.h"

#include <gtest/gtest.h>

#include "store/test_temp_dir.h"

namespace headway::pool {
namespace {

TEST(PoolJob, AJobResultsJsonCarriesItsProcessWorkerAndTimes) {
  PoolJobResult r;
  r.process.started = true;
  r.process.exit_code = 3;
  r.process.output = "arm 0: 5\n";
  r.worker = "w2 on dev3";
  r.attempts = 2;
  r.queued_seconds = 1.5;
  r.run_seconds = 0.25;
  r.transfer_seconds = 0.01;
  const auto back = job_result_from_json(nlohmann::json::parse(job_result_to_json(r).dump()));
  ASSERT_TRUE(back) << back.error().message;
  EXPECT_EQ(back->process.exit_code, 3);
  EXPECT_EQ(back->process.output, "arm 0: 5\n");
  EXPECT_EQ(back->worker, "w2 on dev3");
  EXPECT_EQ(back->attempts, 2);
  EXPECT_EQ(back->queued_seconds, 1.5);
  EXPECT_EQ(back->run_seconds, 0.25);
  EXPECT_EQ(back->transfer_seconds, 0.01);
  nlohmann::json no_worker = job_result_to_json(r);
  no_worker.erase("worker");
  EXPECT_FALSE(job_result_from_json(no_worker));
  EXPECT_FALSE(job_result_from_json(nlohmann::json::array()));
  EXPECT_FALSE(job_result_from_json({{"worker", "w1"}}));
}

TEST(PoolJob, ItsJsonCarriesEveryFieldOfTheJobAndItsPolicy) {
  PoolJob job;
  job.label = "time attn_out";
  job.argv = {"bash", "-c", "echo 'it''s'"};
  job.timeout_seconds = 12.5;
  sandbox::Policy p;
  p.read_only = {"/opt/pack", "/opt/arm a"};
  p.writable = {"/tmp/job-3"};
  p.devices = {"/dev/null"};
  p.working_directory = "/tmp/job-3";
  p.environment = {{"HEADWAY_SEED", "7"}, {"X", "a=b"}};
  p.limits.address_space_bytes = 8ull << 30;
  p.limits.cpu_seconds = 65;
  job.policy = p;
  job.sandbox_disabled = true;
  const auto back = job_from_json(nlohmann::json::parse(job_to_json(job).dump()));
  ASSERT_TRUE(back) << back.error().message;
  EXPECT_EQ(back->label, job.label);
  EXPECT_EQ(back->argv, job.argv);
  EXPECT_EQ(back->timeout_seconds, 12.5);
  EXPECT_TRUE(back->sandbox_disabled);
  ASSERT_TRUE(back->policy);
  EXPECT_EQ(back->policy->read_only, p.read_only);
  EXPECT_EQ(back->policy->writable, p.writable);
  EXPECT_EQ(back->policy->devices, p.devices);
  EXPECT_EQ(back->policy->working_directory, p.working_directory);
  EXPECT_EQ(back->policy->environment, p.environment);
  EXPECT_EQ(back->policy->limits.address_space_bytes, 8ull << 30);
  EXPECT_EQ(back->policy->limits.cpu_seconds, 65u);
}

TEST(PoolJob, AJobWithoutAPolicyStaysWithoutOne) {
  PoolJob job;
  job.argv = {"true"};
  job.cwd = "/tmp";
  const auto back = job_from_json(job_to_json(job));
  ASSERT_TRUE(back);
  EXPECT_FALSE(back->policy);
  EXPECT_EQ(back->cwd, "/tmp");
}

TEST(PoolJob, MalformedJobsAreInvalidInputNamingWhatWasRead) {
  for (const char* text : {R"({})", R"({"label":"x","argv":[],"timeout_seconds":1,"cwd":"",
                            "sandbox_disabled":false})",
                           R"({"label":"x","argv":"true","timeout_seconds":1,"cwd":"",
                            "sandbox_disabled":false})"}) {
    const auto job = job_from_json(nlohmann::json::parse(text));
    ASSERT_FALSE(job) << text;
    EXPECT_EQ(job.error().code, ErrorCode::kInvalidInput);
    EXPECT_NE(job.error().message.find("malformed job"), std::string::npos) << job.error().message;
  }
}

TEST(PoolJob, ALimitThatIsNotAWholeNumberIsRefused) {
  PoolJob job;
  job.argv = {"true"};
  job.policy = sandbox::Policy{};
  for (const char* number : {"-1", "1e300", "0.5"}) {
    nlohmann::json j = job_to_json(job);
    j["policy"]["limits"]["cpu_seconds"] = nlohmann::json::parse(number);
    const auto bad = job_from_json(j);
    ASSERT_FALSE(bad) << number;
    EXPECT_EQ(bad.error().code, ErrorCode::kInvalidInput);
    EXPECT_NE(bad.error().message.find("expected a whole number"), std::string::npos)
        << bad.error().message;
  }
}

TEST(PoolJob, AProcessResultSurvivesItsJson) {
  ProcessResult r;
  r.started = true;
  r.exit_code = 3;
  r.signal = 9;
  r.timed_out = true;
  r.output = "line\n\x01";
  r.error = "why";
  const auto back = process_result_from_json(process_result_to_json(r));
  ASSERT_TRUE(back);
  EXPECT_EQ(back->exit_code, 3);
  EXPECT_EQ(back->signal, 9);
  EXPECT_TRUE(back->timed_out);
  EXPECT_EQ(back->output, r.output);
  EXPECT_EQ(back->error, "why");
  EXPECT_FALSE(process_result_from_json(nlohmann::json{{"started", true}}));
  // Integers that are floats or out of range are refused, never converted.
  for (const char* number : {"1e300", "2.5", "4294967296"}) {
    nlohmann::json j = process_result_to_json(r);
    j["exit_code"] = nlohmann::json::parse(number);
    const auto bad = process_result_from_json(j);
    ASSERT_FALSE(bad) << number;
    EXPECT_NE(bad.error().message.find("malformed process result"), std::string::npos)
        << bad.error().message;
  }
}

TEST(PoolJob, RunsHereInItsWorkingFolderWithItsLimit) {
  store::TestTempDir dir;
  PoolJob job;
  job.argv = {"sh", "-c", "pwd; exit 3"};
  job.cwd = dir.path().string();
  double seconds = -1;
  const ProcessResult r = run_job_here(job, &seconds);
  EXPECT_EQ(r.exit_code, 3);
  EXPECT_EQ(r.output, dir.path().string() + "\n");
  EXPECT_GE(seconds, 0.0);
  job.argv = {"sleep", "5"};
  job.timeout_seconds = 0.2;
  EXPECT_TRUE(run_job_here(job).timed_out);
}

}  // namespace
}  // namespace headway::pool
