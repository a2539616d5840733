#include "pool/slurm_cluster_test_support.h"

#include <gtest/gtest.h>
#include <signal.h>

#include <cerrno>

#include "common/file_io.h"
#include "common/subprocess.h"

namespace headway::pool::testing {
namespace {

namespace fs = std::filesystem;

std::vector<pid_t> daemon_pids(const SlurmCluster& cluster) {
  std::vector<pid_t> pids;
  for (const auto& entry : fs::directory_iterator(cluster.folder() / "slurm")) {
    if (entry.path().extension() == ".pid") pids.push_back(std::stoi(*read_file(entry.path())));
  }
  return pids;
}

TEST(SlurmCluster, TwoRunSideBySideAndNeitherLeavesADaemonBehind) {
  if (const std::string why = SlurmCluster::unavailable_reason(); !why.empty()) GTEST_SKIP() << why;
  std::vector<pid_t> pids;
  {
    SlurmCluster first(2);
    const std::string first_conf = std::getenv("SLURM_CONF");
    SlurmCluster second(2);
    const ProcessResult submitted = run_process(
        {"sbatch", "--parsable", "--partition=dev", "--output=/dev/null", "--wrap=sleep 60"}, 30);
    ASSERT_TRUE(submitted.ok()) << submitted.output;
    EXPECT_EQ(second.queue().size(), 1u);
    const ProcessResult other =
        run_process({"env", "SLURM_CONF=" + first_conf, "squeue", "--noheader", "--format=%i"}, 30);
    EXPECT_TRUE(other.ok()) << other.output;
    EXPECT_EQ(other.output, "") << "the job went to the second cluster only";
    pids = daemon_pids(first);
    const auto more = daemon_pids(second);
    pids.insert(pids.end(), more.begin(), more.end());
    EXPECT_EQ(pids.size(), 8u) << "munged, slurmctld and two slurmd each";
  }
  for (pid_t pid : pids) {
    EXPECT_TRUE(kill(pid, 0) != 0 && errno == ESRCH) << "daemon " << pid << " still runs";
  }
}

}  // namespace
}  // namespace headway::pool::testing
