#include "pool/worker.h"

#include <fmt/format.h>
#include <signal.h>
#include <unistd.h>  // getpid

#include <array>
#include <chrono>
#include <csignal>
#include <cstdlib>
#include <thread>

#include "pool/line_channel.h"
#include "pool/pool_job.h"

namespace headway::pool {

namespace {

// The signal a scheduler ends an allocation with (scancel, a node set down, the time limit,
// preemption: SIGTERM to every process of the job, the job's own too), or 0.
volatile std::sig_atomic_t g_ending_signal = 0;
// Set by SIGCONT, which Slurm sends to every process of a job before it sends SIGTERM to any
// when it ends the job: a job whose own processes were signalled first may still end normally
// (a shell goes on past its killed child), so a SIGCONT during a job means the worker waits for
// its own ending signal before it believes the result.
volatile std::sig_atomic_t g_continued = 0;
extern "C" void on_ending_signal(int sig) {
  if (sig == SIGCONT) {
    g_continued = 1;
  } else {
    g_ending_signal = sig;
  }
}

// Catches SIGTERM, SIGINT, SIGHUP and SIGCONT while it lives, then puts the earlier handlers
// back.
class EndingSignals {
 public:
  EndingSignals() {
    g_ending_signal = 0;
    struct sigaction sa {};
    sa.sa_handler = on_ending_signal;
    sigemptyset(&sa.sa_mask);
    for (size_t i = 0; i < kSignals.size(); ++i) sigaction(kSignals[i], &sa, &old_[i]);
  }
  ~EndingSignals() {
    for (size_t i = 0; i < kSignals.size(); ++i) sigaction(kSignals[i], &old_[i], nullptr);
  }
  EndingSignals(const EndingSignals&) = delete;
  EndingSignals& operator=(const EndingSignals&) = delete;

 private:
  static constexpr std::array<int, 4> kSignals = {SIGTERM, SIGINT, SIGHUP, SIGCONT};
  std::array<struct sigaction, 4> old_{};
};

// A job's process ended by a signal that comes from outside it (not a crash of its own, not its
// time limit): the scheduler may be ending the allocation, signalling the job's processes one
// by one, so the worker waits a moment for its own signal before it believes the result.
bool killed_from_outside(const nlohmann::json& reply) {
  if (!reply.contains("process")) return false;
  const nlohmann::json& p = reply["process"];
  const int sig = p.value("signal", 0);
  return !p.value("timed_out", false) &&
         (sig == SIGTERM || sig == SIGKILL || sig == SIGINT || sig == SIGHUP);
}

void wait_for_ending_signal(double seconds) {
  const auto until = std::chrono::steady_clock::now() + std::chrono::duration<double>(seconds);
  while (!g_ending_signal && std::chrono::steady_clock::now() < until) {
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
}

std::string env_or(const char* name, const std::string& fallback) {
  const char* v = std::getenv(name);
  return v && *v ? v : fallback;
}

nlohmann::json run_one(const nlohmann::json& message, const std::string& device) {
  nlohmann::json reply = {{"type", "result"}, {"id", message.value("id", -1)}};
  auto job = job_from_json(message.value("job", nlohmann::json::object()));
  if (!job) {
    reply["error"] = job.error().message;
    return reply;
  }
  if (job->policy) {
    sandbox::set_mode(job->sandbox_disabled ? sandbox::Mode::kDisabled : sandbox::Mode::kRequired);
    job->policy->environment.emplace_back("HEADWAY_DEVICE", device);
  }
  double seconds = 0.0;
  try {
    reply["process"] = process_result_to_json(run_job_here(*job, &seconds));
  } catch (const std::exception& e) {
    ProcessResult failed;
    failed.error = e.what();
    reply["process"] = process_result_to_json(failed);
  }
  reply["seconds"] = seconds;
  return reply;
}

}  // namespace

int run_worker(const WorkerOptions& options, std::ostream& log) {
  const EndingSignals signals;
  auto connected =
      LineChannel::connect(options.host, options.port, options.connect_timeout_seconds);
  if (!connected) {
    log << "worker " << options.name << ": " << connected.error().message << std::endl;
    return 3;
  }
  LineChannel& run = **connected;
  const std::string node = env_or("SLURMD_NODENAME", this_host_name());
  const std::string device = options.name + "@" + node;
  setenv("HEADWAY_DEVICE", device.c_str(), 1);  // for jobs outside the sandbox
  run.send({{"type", "hello"},
            {"protocol", kProtocolVersion},
            {"token", options.token},
            {"name", options.name},
            {"node", node},
            {"slurm_job", env_or("SLURM_JOB_ID", "")},
            {"pid", getpid()}});
  nlohmann::json message = nlohmann::json::object();
  if (run.receive(&message, options.connect_timeout_seconds) != LineChannel::Received::kMessage ||
      message.value("type", "") != "welcome") {
    log << "worker " << options.name
        << ": refused by the run: " << message.value("why", "no welcome") << std::endl;
    return 2;
  }
  log << "worker " << options.name << " on " << node << ": connected to " << run.peer()
      << std::endl;
  int jobs = 0;
  using Clock = std::chrono::steady_clock;
  auto last_word = Clock::now();
  const auto ended = [&] {
    log << fmt::format("worker {}: ended by signal {}; {} jobs", options.name,
                       static_cast<int>(g_ending_signal), jobs)
        << std::endl;
    return 128 + g_ending_signal;
  };
  for (;;) {
    if (g_ending_signal) return ended();
    const auto got = run.receive(&message, 0.25);
    if (got == LineChannel::Received::kTimeout) {
      if (std::chrono::duration<double>(Clock::now() - last_word).count() < options.lease_seconds)
        continue;
      log << fmt::format("worker {}: no word from the run for {:g} s, its lease ran out; {} jobs",
                         options.name, options.lease_seconds, jobs)
          << std::endl;
      return 0;
    }
    last_word = Clock::now();
    if (got == LineChannel::Received::kClosed) {
      log << fmt::format("worker {}: the run closed the connection; {} jobs", options.name, jobs)
          << std::endl;
      return 0;
    }
    const std::string type = message.value("type", "");
    if (type == "bye") {
      log << fmt::format("worker {}: done; {} jobs", options.name, jobs) << std::endl;
      return 0;
    }
    nlohmann::json reply;
    if (type == "ping") {
      reply = {{"type", "pong"}};
    } else if (type == "job") {
      g_continued = 0;
      reply = run_one(message, device);
      if (killed_from_outside(reply) || g_continued) wait_for_ending_signal(2.0);
      // The scheduler ended this allocation while the job ran: it killed the job's processes
      // too, so its result says nothing of the candidate. Leaving without it makes the run give
      // the job to another worker.
      if (g_ending_signal) return ended();
      ++jobs;
    } else {
      reply = {{"type", "error"}, {"why", "unknown message type: " + type}};
    }
    if (!run.send(reply)) {
      log << fmt::format("worker {}: the run is gone; {} jobs", options.name, jobs) << std::endl;
      return 0;
    }
  }
}

}  // namespace headway::pool
