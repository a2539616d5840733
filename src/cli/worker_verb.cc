#include <fmt/format.h>

#include <iostream>
#include <memory>
#include <string>

#include "cli/cli_support.h"
#include "cli/verbs.h"
#include "common/file_io.h"
#include "pool/worker.h"

namespace headway::cli {

namespace {

struct WorkerArgs {
  std::string connect;  // HOST:PORT
  std::string token_file;
  std::string name = "worker";
  double lease_seconds = 60.0;
};

int run_worker_verb(const WorkerArgs& args) {
  pool::WorkerOptions options;
  const size_t colon = args.connect.rfind(':');
  if (colon == std::string::npos || colon == 0) {
    fail_with(invalid_input("--connect wants HOST:PORT, not '" + args.connect + "'"));
  }
  options.host = args.connect.substr(0, colon);
  try {
    options.port = std::stoi(args.connect.substr(colon + 1));
  } catch (const std::exception&) {
    fail_with(invalid_input("--connect wants HOST:PORT, not '" + args.connect + "'"));
  }
  const auto token = read_file(args.token_file);
  if (!token) fail_with(not_found("cannot read the token file " + args.token_file));
  options.token = token->substr(0, token->find_last_not_of("\r\n") + 1);
  options.name = args.name;
  options.lease_seconds = args.lease_seconds;
  return pool::run_worker(options, std::cerr);
}

}  // namespace

void add_worker(CLI::App& app, int* exit_code) {
  auto args = std::make_shared<WorkerArgs>();
  auto* cmd = app.add_subcommand(
      "worker",
      "Run device jobs for a run's device pool (started by the pool on each device, e.g. by "
      "sbatch; docs/POOL.md)");
  cmd->add_option("--connect", args->connect, "the run's address, HOST:PORT")->required();
  cmd->add_option("--token-file", args->token_file, "the file holding the run's token")->required();
  cmd->add_option("--name", args->name, "this worker's name in the run's status");
  cmd->add_option("--lease", args->lease_seconds,
                  "seconds without word from the run after which the worker exits")
      ->check(CLI::PositiveNumber);
  cmd->callback([args, exit_code] { run_verb(exit_code, [&] { return run_worker_verb(*args); }); });
}

}  // namespace headway::cli
