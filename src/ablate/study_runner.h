#pragma once
// Runs a study's pending runs (ablate/study.h), each as the commands a user would type:
//   headway init RUN_DIR --target T [--manifest M]
//   headway optimize --workspace RUN_DIR --budget B [--kernels K] --seed S --json ARM'S ARGS
//                    STUDY'S OPTIMIZE ARGS  RUNNER'S OPTIMIZE ARGS (the study's pool:
//                    --pool study --pool-broker HOST:PORT --pool-token-file F)
// `jobs` runs at once, each in processes of its own. A run starts from an empty folder (what an
// earlier, unfinished attempt left is removed); its result.json is written, atomically, only
// when optimize exits 0 with its JSON, and its progress goes to optimize.log beside it.
#include <atomic>
#include <filesystem>
#include <functional>
#include <string>
#include <vector>

#include "ablate/study.h"

namespace headway::ablate {

struct RunnerOptions {
  std::filesystem::path headway;         // the headway executable the runs use
  std::vector<std::string> global_args;  // before each verb, e.g. {"--no-sandbox"}
  int jobs = 1;                          // runs at once; >= 1
  // After the study's optimize_args, on every run's optimize: how the runs reach the study's
  // device pool (pool/pool_broker.h), e.g. {"--pool", "study", "--pool-broker", "127.0.0.1:40312",
  // "--pool-token-file", "DIR/pool/broker-token"}.
  std::vector<std::string> optimize_args;
  // Each run is killed past this; 0: twice the budget plus 10 minutes (the set-up and the final
  // timing of the heads come on top of the budget).
  double timeout_seconds = 0;
  // A line per run started and ended; may be called from several threads, one call at a time.
  std::function<void(const std::string& line)> log;
  // Optional, not owned: once true, no run starts, and the runs in flight are stopped (SIGTERM to
  // their processes, SIGKILL 5 s later) and left without a result.
  const std::atomic<bool>* cancel = nullptr;
};

struct RunnerReport {
  int ran = 0;                        // runs that ended with a result
  std::vector<std::string> failures;  // "ARM run N: why", one per run that did not
  int stopped = 0;                    // runs in flight stopped by the cancel flag
};

// Runs every pending run of `study`, at most options.jobs at once, and returns what became of
// them. A run that fails is reported, not retried (a later call runs it again).
RunnerReport run_pending(const Study& study, const RunnerOptions& options);

}  // namespace headway::ablate
