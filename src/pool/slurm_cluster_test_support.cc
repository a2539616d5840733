#include "pool/slurm_cluster_test_support.h"

#include <signal.h>
#include <unistd.h>

#include <chrono>
#include <cstdlib>
#include <sstream>
#include <stdexcept>
#include <thread>

#include "common/file_io.h"
#include "common/subprocess.h"

namespace headway::pool::testing {

namespace fs = std::filesystem;

namespace {

const std::string kScript = std::string(HEADWAY_SOURCE_DIR) + "/scripts/local-slurm.sh";

bool on_path(const std::string& program) {
  return run_process({"sh", "-c", "command -v " + program + " || test -x /usr/sbin/" + program}, 10)
      .ok();
}

std::string cluster_dir(const fs::path& root) { return (root / "slurm").string(); }

}  // namespace

std::string SlurmCluster::unavailable_reason() {
  if (geteuid() != 0) return "a local Slurm cluster needs root";
  for (const char* p : {"munged", "slurmctld", "slurmd", "sbatch", "squeue", "scancel"}) {
    if (!on_path(p)) return std::string(p) + " is not installed (scripts/install-deps.sh)";
  }
  return "";
}

SlurmCluster::SlurmCluster(int nodes) {
  if (const char* conf = std::getenv("SLURM_CONF")) {
    had_conf_ = true;
    saved_conf_ = conf;
  }
  const ProcessResult r =
      run_process({kScript, "start", cluster_dir(dir_.path()), std::to_string(nodes)}, 60);
  if (!r.ok()) throw std::runtime_error("local-slurm.sh start failed: " + r.output);
  setenv("SLURM_CONF", (fs::path(cluster_dir(dir_.path())) / "slurm.conf").c_str(), 1);
}

SlurmCluster::~SlurmCluster() {
  (void)run_process({kScript, "stop", cluster_dir(dir_.path())}, 60);
  if (had_conf_) {
    setenv("SLURM_CONF", saved_conf_.c_str(), 1);
  } else {
    unsetenv("SLURM_CONF");
  }
}

std::vector<std::string> SlurmCluster::queue() const {
  const ProcessResult r = run_process({"squeue", "--noheader", "--format=%i"}, 30);
  std::vector<std::string> ids;
  std::istringstream lines(r.output);
  for (std::string line; std::getline(lines, line);) {
    if (!line.empty()) ids.push_back(line);
  }
  return ids;
}

bool SlurmCluster::queue_empties_within(double seconds) const {
  const auto until = std::chrono::steady_clock::now() + std::chrono::duration<double>(seconds);
  for (;;) {
    if (queue().empty()) return true;
    if (std::chrono::steady_clock::now() > until) return false;
    std::this_thread::sleep_for(std::chrono::milliseconds(200));
  }
}

std::string SlurmCluster::node_of(const std::string& job) const {
  const ProcessResult r = run_process({"squeue", "--noheader", "--format=%N", "--jobs=" + job}, 30);
  std::string node = r.ok() ? r.output : "";
  while (!node.empty() && (node.back() == '\n' || node.back() == ' ')) node.pop_back();
  return node;
}

void SlurmCluster::set_node_down(const std::string& node) const {
  const ProcessResult r = run_process(
      {"scontrol", "update", "nodename=" + node, "state=down", "reason=headway-test"}, 30);
  if (!r.ok()) throw std::runtime_error("scontrol update failed: " + r.output);
}

void SlurmCluster::restart_controller() const {
  const fs::path dir = cluster_dir(dir_.path());
  const auto pid_text = read_file(dir / "slurmctld.pid");
  if (!pid_text) throw std::runtime_error("no slurmctld.pid");
  const pid_t pid = std::stoi(*pid_text);
  kill(pid, SIGTERM);
  for (int i = 0; i < 100 && kill(pid, 0) == 0; ++i) {
    std::this_thread::sleep_for(std::chrono::milliseconds(100));
  }
  const ProcessResult r = run_process({"slurmctld", "-f", (dir / "slurm.conf").string()}, 30);
  if (!r.ok()) throw std::runtime_error("slurmctld did not start again: " + r.output);
  for (int i = 0; i < 100; ++i) {
    if (run_process({"squeue", "--noheader"}, 10).ok()) return;
    std::this_thread::sleep_for(std::chrono::milliseconds(100));
  }
  throw std::runtime_error("slurmctld does not answer after its restart");
}

}  // namespace headway::pool::testing
