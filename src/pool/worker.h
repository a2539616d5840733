#pragma once
// `headway worker`: the long-lived process a device pool starts on each device (one per Slurm
// allocation). It connects back to the run, introduces itself with the run's token, then runs
// the jobs it is sent one at a time on its node and sends back each result, until the run says
// goodbye, the connection closes, or nothing arrives for a lease (the run pings an idle worker
// well within it): so a worker whose run was killed, even with SIGKILL, exits by itself.
// Jobs see HEADWAY_DEVICE, the device's name ("w3@dev2": the worker's name and its node).
//
// Protocol (line_channel.h, one JSON object a line; "type" names the message):
//   worker -> run  {"type":"hello","token","name","node","slurm_job","pid"}
//   run -> worker  {"type":"welcome"} | {"type":"refused","why"}
//   run -> worker  {"type":"job","id","job":pool_job.h's JSON}  -> {"type":"result","id",
//                  "process":{...},"seconds"} or {"type":"result","id","error"} (a malformed job)
//   run -> worker  {"type":"ping"} -> {"type":"pong"};  {"type":"bye"}: exit
#include <ostream>
#include <string>

namespace headway::pool {

inline constexpr int kProtocolVersion = 1;

struct WorkerOptions {
  std::string host;  // the run's address
  int port = 0;
  std::string token;  // the run's secret: a worker without it is refused
  std::string name;   // e.g. "w3"; shown in status
  double lease_seconds = 60.0;
  double connect_timeout_seconds = 30.0;
};

// Runs a worker until it ends; returns the process exit status: 0 after a goodbye or when the
// run is gone (closed connection, lease run out), 2 when refused, 3 when it cannot connect,
// 128 + N after signal N (SIGTERM, SIGINT or SIGHUP, caught while it runs: a scheduler ending
// the allocation kills the job's processes with the same signal, so the result of a job that
// signal met is never sent). Writes one line per event to `log`.
int run_worker(const WorkerOptions& options, std::ostream& log);

}  // namespace headway::pool
