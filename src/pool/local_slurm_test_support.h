#pragma once
// For tests: a whole real Slurm cluster on 127.0.0.1, from the Debian packages munge, slurmctld,
// slurmd and slurm-client (scripts/install-deps.sh), started and stopped from C++.
//
// One LocalSlurm is one cluster: its own munged, one slurmctld and one slurmd per node (dev1..devN,
// one CPU each), with its configuration, state, spool folders, pid files and logs in a fresh
// temporary folder and its ports chosen free at start, so that two fixtures (two test processes
// under `ctest -j2`, or two in one process) run side by side without sharing anything but the munge
// key /etc/munge/munge.key. The daemons write nothing outside that folder; client() runs its
// commands in it, so that a job's default output file (slurm-ID.out, in sbatch's working folder)
// lands there too.
//
// The daemons run in the foreground (-D, -F) as children of the process that built the fixture,
// each in its own session: the fixture knows their pids without reading pid files, and stops
// exactly those. If that process dies without running the destructor (a crash, an abort,
// SIGKILL from ctest's timeout), a watchdog it started with the cluster (a shell reading a pipe
// only that process writes to) kills what runs for the cluster, daemons, slurmstepd and jobs
// alike, and removes the folder.
#include <sys/types.h>

#include <filesystem>
#include <optional>
#include <string>
#include <vector>

#include "common/subprocess.h"
#include "store/test_temp_dir.h"

namespace headway::pool::testing {

class LocalSlurm {
 public:
  // Empty when this machine can run a local cluster (munged, slurmctld, slurmd, sbatch, squeue,
  // scancel, scontrol and sinfo on PATH or in /usr/sbin, the munge key present, running as root),
  // else one line saying what is missing.
  static std::string unavailable_reason();

  // Starts munged (its own socket, pid, log and seed file in the folder; the key
  // /etc/munge/munge.key), slurmctld and one slurmd per node (`slurmd -N devK`): nodes dev[1-N]
  // with NodeHostname = this host's name, NodeAddr=127.0.0.1 and CPUs=1, one partition "dev"
  // holding them all, ProctrackType=proctrack/linuxproc, TaskPlugin=task/none,
  // select/cons_tres with CR_CPU, ReturnToService=1, no accounting. Ports are free when chosen: the
  // controller's is controller_port(), node K's controller_port() + K. Returns when all N nodes are
  // idle (sinfo); throws std::runtime_error with the tail of the daemons' logs when that takes over
  // 30 s, when a daemon exits meanwhile or when unavailable_reason() is not empty. Nothing is left
  // running after a throw.
  explicit LocalSlurm(int nodes = 4);
  // Cancels the jobs left in the queue, stops every daemon it started (SIGTERM; after 3 s, or once
  // the daemon has exited, SIGKILL to the daemon's whole process group, which also ends helpers
  // such as slurmctld's slurmscriptd), restores SLURM_CONF when export_conf() set it and removes
  // the folder. Never throws.
  ~LocalSlurm();
  LocalSlurm(const LocalSlurm&) = delete;
  LocalSlurm& operator=(const LocalSlurm&) = delete;

  // The cluster's folder: slurm.conf, munge.sock, state/, spool/devK/, log/ (each daemon's log
  // file and its captured stdout and stderr, NAME.out).
  const std::filesystem::path& folder() const { return dir_.path(); }
  // The slurm.conf clients use via SLURM_CONF.
  const std::filesystem::path& conf() const { return conf_; }
  // The partition holding every node: "dev".
  std::string partition() const { return "dev"; }
  int nodes() const { return nodes_; }
  // dev1..devN.
  std::vector<std::string> node_names() const;
  int controller_port() const { return port_; }

  // Sets SLURM_CONF in this process's environment to conf(), so that the sbatch, squeue and
  // scancel that the code under test runs (and their children) reach this cluster; the destructor
  // restores the value it had before the first call (or unsets it). Not thread-safe (setenv).
  void export_conf();

  // Runs a Slurm client command (argv[0]: "squeue", "sbatch", ...; found as unavailable_reason()
  // finds it) against this cluster, in folder(), with SLURM_CONF=conf() set for it alone.
  CommandResult client(const std::vector<std::string>& argv, double timeout_seconds = 30) const;

  // The ids of the jobs in the queue (squeue -h -o %i), in any state squeue shows. Throws
  // std::runtime_error when squeue fails.
  std::vector<std::string> queue() const;
  // The state of a job (squeue -h -j ID -o %T: "RUNNING", "PENDING", ...), empty when squeue
  // does not know it.
  std::string job_state(const std::string& job_id) const;
  // The node a job runs on (squeue -h -j ID -o %N), empty when it has none or squeue does not know
  // it.
  std::string node_of(const std::string& job_id) const;
  // The nodes sinfo reports idle.
  int idle_nodes() const;

  // scontrol update nodename=NODE state=down reason=test: Slurm kills the jobs on it and requeues
  // the batch jobs that allow it (the default), which then wait about 2 minutes (their BeginTime)
  // before they run again. The node stays down until set_node_up (ReturnToService=1). Throws
  // std::runtime_error when scontrol fails.
  void set_node_down(const std::string& node);
  // scontrol update nodename=NODE state=resume. Throws std::runtime_error when scontrol fails.
  void set_node_up(const std::string& node);
  // Stops slurmctld (SIGTERM, waiting for it to exit), starts it again on the same port and state
  // and returns once it answers squeue. Throws std::runtime_error with the logs' tail when it does
  // not answer within 30 s.
  void restart_controller();

  // The pids of every daemon the fixture started, in order (munged, slurmctld, slurmd dev1..devN,
  // then each restarted slurmctld), including those it has stopped since. After the destructor,
  // none of them is a live process (each was reaped).
  std::vector<pid_t> daemon_pids() const;

  // The last `lines` lines of every file in log/, each under a "== NAME ==" line (a daemon's
  // NAME.out only when it has no NAME.log: in the foreground it writes its log to both).
  std::string log_tail(int lines = 15) const;

 private:
  struct Daemon {
    std::string name;  // "munged", "slurmctld", "slurmd-dev1": its output goes to log/NAME.out
    pid_t pid = -1;
    bool reaped = false;
  };

  Daemon spawn(const std::string& name, const std::vector<std::string>& argv);
  // Throws std::runtime_error (with the logs' tail) naming the first daemon that has exited.
  void check_daemons_alive();
  // Returns once the controller accepts a TCP connection and answers squeue, or throws.
  void wait_for_controller(double seconds);
  // SIGTERM; once it has exited or after grace_seconds, SIGKILL to its process group; then reaps
  // it.
  void stop(Daemon& d, double grace_seconds);
  void start_watchdog();
  void shutdown() noexcept;

  store::TestTempDir dir_;
  std::filesystem::path conf_;
  int nodes_ = 0;
  int port_ = 0;
  std::vector<Daemon> daemons_;  // alive or not yet reaped; [0] munged, [1] slurmctld
  std::vector<pid_t> started_;
  pid_t watchdog_ = -1;
  int watchdog_pipe_ = -1;  // the write end of the watchdog's standard input
  bool exported_ = false;
  std::optional<std::string> saved_conf_;
};

}  // namespace headway::pool::testing
