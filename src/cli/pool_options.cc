#include "cli/pool_options.h"

#include <fmt/format.h>
#include <unistd.h>

#include <filesystem>

#include "cli/cli_support.h"
#include "common/file_io.h"
#include "common/subprocess.h"
#include "pool/broker_client.h"
#include "pool/slurm_launcher.h"
#include "pool/worker_pool.h"

namespace headway::cli {

namespace fs = std::filesystem;

void add_pool_options(CLI::App& cmd, PoolArgs& args, PoolOptionsOf of) {
  const bool study_run = of == PoolOptionsOf::kOptimize;
  const std::vector<std::string> kinds = study_run
                                             ? std::vector<std::string>{"local", "slurm", "study"}
                                             : std::vector<std::string>{"local", "slurm"};
  cmd.add_option("--pool", args.kind,
                 std::string("where device work runs: local (this machine) or slurm (a worker per "
                             "device, started with sbatch; docs/POOL.md)") +
                     (study_run ? ", or study (the pool of the `headway ablate` this run is one "
                                  "of, with --pool-broker and --pool-token-file)"
                                  "; default: the workspace's, else local"
                      : of == PoolOptionsOf::kStudy
                          ? "; one pool, which every run of the study shares; default: the "
                            "study's, else local"
                          : "; default: local"))
      ->check(CLI::IsMember(kinds));
  if (study_run) {
    cmd.add_option("--pool-broker", args.broker,
                   "with --pool study: the study pool's HOST:PORT (headway ablate gives it)");
    cmd.add_option("--pool-token-file", args.token_file,
                   "with --pool study: the file holding the study pool's token");
  }
  cmd.add_option("--workers", args.workers, "with --pool slurm: devices (workers) to use")
      ->check(CLI::Range(1, 4096));
  cmd.add_option("--partition", args.partition, "with --pool slurm: sbatch --partition");
  cmd.add_option("--account", args.account, "with --pool slurm: sbatch --account");
  cmd.add_option("--gres", args.gres, "with --pool slurm: sbatch --gres per worker, e.g. gpu:1");
  cmd.add_flag("--exclusive", args.exclusive, "with --pool slurm: a whole node per worker");
  cmd.add_option("--worker-time", args.worker_time,
                 "with --pool slurm: each worker's time limit, Slurm's format (e.g. 4:00:00)");
  cmd.add_option("--pool-host", args.pool_host,
                 "with --pool slurm: the address workers connect back to (default: host name)");
  cmd.add_option("--lease", args.lease_seconds,
                 "with --pool slurm: seconds a worker waits for word from the run before it "
                 "exits (default 60)")
      ->check(CLI::PositiveNumber);
}

bool pool_given(const PoolArgs& args) {
  return !args.kind.empty() || args.workers || !args.partition.empty() || !args.account.empty() ||
         !args.gres.empty() || args.exclusive || !args.worker_time.empty() ||
         !args.pool_host.empty() || args.lease_seconds > 0 || !args.broker.empty() ||
         !args.token_file.empty();
}

nlohmann::json pool_config(store::Workspace& ws, const PoolArgs& args) {
  if (args.kind == "study") {
    nlohmann::json config = pool_config(args, nlohmann::json::object());
    const fs::path root = fs::absolute(ws.root()).lexically_normal();
    config["name"] = (root.parent_path().filename() / root.filename()).string();
    return config;
  }
  nlohmann::json stored = nlohmann::json::object();
  if (const auto text = ws.meta("pool"); text && !text->empty()) {
    auto parsed = nlohmann::json::parse(*text, nullptr, false);
    if (parsed.is_object()) stored = parsed;
  }
  nlohmann::json config = pool_config(args, stored);
  const nlohmann::json before =
      stored.contains("kind") ? stored : nlohmann::json{{"kind", "local"}};
  if (config != before) ws.set_meta("pool", config.dump());
  return config;
}

nlohmann::json pool_config(const PoolArgs& args, nlohmann::json stored) {
  if ((args.kind == "study") != (!args.broker.empty() && !args.token_file.empty()) ||
      (args.kind != "study" && (!args.broker.empty() || !args.token_file.empty()))) {
    throw UsageError(
        "--pool study goes with --pool-broker and --pool-token-file, and they with it");
  }
  nlohmann::json config = stored.is_object() && stored.contains("kind")
                              ? std::move(stored)
                              : nlohmann::json{{"kind", "local"}};
  if (!args.kind.empty() && args.kind != config.value("kind", "local")) {
    config = {{"kind", args.kind}};  // another kind of pool: its options start afresh
  }
  const bool slurm = config.value("kind", "local") == "slurm";
  const bool slurm_options = args.workers || !args.partition.empty() || !args.account.empty() ||
                             !args.gres.empty() || args.exclusive || !args.worker_time.empty() ||
                             !args.pool_host.empty() || args.lease_seconds > 0;
  if (args.kind == "study") {
    if (slurm_options) {
      throw UsageError(
          "a study's pool has the options its `headway ablate` gave it: --workers, "
          "--partition, ... do not go with --pool study");
    }
    return {{"kind", "study"}, {"broker", args.broker}, {"token_file", args.token_file}};
  }
  if (!slurm && slurm_options) {
    throw UsageError(
        "--workers, --partition, --account, --gres, --exclusive, --worker-time, "
        "--pool-host and --lease go with --pool slurm");
  }
  if (slurm) {
    if (args.workers) config["workers"] = args.workers;
    if (!args.partition.empty()) config["partition"] = args.partition;
    if (!args.account.empty()) config["account"] = args.account;
    if (!args.gres.empty()) config["gres"] = args.gres;
    if (args.exclusive) config["exclusive"] = true;
    if (!args.worker_time.empty()) config["worker_time"] = args.worker_time;
    if (!args.pool_host.empty()) config["pool_host"] = args.pool_host;
    if (args.lease_seconds > 0) config["lease_seconds"] = args.lease_seconds;
    if (!config.contains("workers")) config["workers"] = 1;
  }
  return config;
}

fs::path pool_folder(store::Workspace& ws) { return ws.root() / ".headway" / "pool"; }

bool target_takes_pool(targets::Target& target) {
  if (!target.identity().found) throw EnvironmentError(target.identity().error);
  if (const std::string why = target.pool_refusal(); !why.empty()) {
    fmt::print(stderr, "headway: warning: no slurm pool is started: {}\n", why);
    return false;
  }
  return true;
}

std::shared_ptr<pool::DevicePool> start_slurm_pool(const nlohmann::json& config,
                                                   const fs::path& folder) {
  pool::SlurmOptions slurm;
  slurm.partition = config.value("partition", "");
  slurm.account = config.value("account", "");
  slurm.gres = config.value("gres", "");
  slurm.exclusive = config.value("exclusive", false);
  slurm.time_limit = config.value("worker_time", "");
  slurm.folder = folder;
  pool::WorkerPoolOptions options;
  options.workers = config.value("workers", 1);
  options.advertise_host = config.value("pool_host", "");
  options.folder = folder;
  options.headway_binary = own_executable().string();
  if (options.headway_binary.empty())
    throw EnvironmentError("cannot find this headway's own binary");
  std::error_code ec;
  options.lease_seconds = config.value("lease_seconds", 60.0);
  options.status_file = folder / "status.json";
  fs::remove(options.status_file, ec);  // an earlier run's
  auto started = pool::WorkerPool::start(std::make_unique<pool::SlurmLauncher>(slurm), options);
  if (!started) throw EnvironmentError("the slurm pool cannot start: " + started.error().message);
  return std::shared_ptr<pool::DevicePool>(std::move(*started));
}

namespace {

std::shared_ptr<pool::DevicePool> join_study_pool(const nlohmann::json& config,
                                                  const fs::path& folder) {
  pool::BrokerClientOptions options;
  options.address = config.value("broker", "");
  const auto token = read_file(config.value("token_file", ""));
  if (!token) {
    throw EnvironmentError(
        fmt::format("cannot read the study pool's token file {}", config.value("token_file", "")));
  }
  options.token = token->substr(0, token->find('\n'));
  options.name = config.value("name", "");
  options.status_file = folder / "status.json";
  std::error_code ec;
  fs::remove(options.status_file, ec);  // an earlier run's
  auto joined = pool::BrokerClient::connect(options);
  if (!joined) throw EnvironmentError("cannot join the study's pool: " + joined.error().message);
  fmt::print(stderr, "headway: the study's {} pool: {} devices shared by its runs, at {}\n",
             (*joined)->study_kind(), (*joined)->devices(), options.address);
  return std::shared_ptr<pool::DevicePool>(std::move(*joined));
}

}  // namespace

std::shared_ptr<pool::DevicePool> start_pool(const nlohmann::json& config, targets::Target& target,
                                             const fs::path& folder) {
  const std::string kind = config.value("kind", "local");
  if (kind != "slurm" && kind != "study") return nullptr;
  if (!target_takes_pool(target)) return nullptr;
  std::shared_ptr<pool::DevicePool> devices;
  if (kind == "study") {
    devices = join_study_pool(config, folder);
  } else {
    if (target.times_on_host() && !config.value("exclusive", false)) {
      fmt::print(stderr,
                 "headway: warning: the {} target times on its nodes' cores: without --exclusive "
                 "other jobs of a node share them and skew the readings\n",
                 target.name());
    }
    devices = start_slurm_pool(config, folder);
    fmt::print(stderr, "headway: {}\n", pool_line(config));
  }
  target.use_pool(devices);
  return devices;
}

fs::path pool_status_path(store::Workspace& ws) { return pool_folder(ws) / "status.json"; }

std::string pool_text(const nlohmann::json& status) {
  const auto& s = status["stats"];
  const double held = s["device_seconds"].get<double>();
  const double idle = held > 0 ? 100.0 * (1.0 - s["busy_seconds"].get<double>() / held) : 0.0;
  std::string text = fmt::format(
      "pool: {} with {} devices; {} jobs done, {} running, {} queued, {} run again; {} workers "
      "started, {} lost; {:.1f} device minutes held{}, {:.0f}% idle{}\n",
      status["kind"].get<std::string>(), status["devices"].get<int>(), s["jobs"].get<int64_t>(),
      s["running"].get<int64_t>(), s["queued"].get<int64_t>(), s["retried"].get<int64_t>(),
      s["workers_started"].get<int64_t>(), s["workers_lost"].get<int64_t>(), held / 60,
      s.value("scheduler_seconds", 0.0) > 0
          ? fmt::format(" ({:.1f} by the scheduler)", s["scheduler_seconds"].get<double>() / 60)
          : std::string(),
      idle,
      s["jobs"].get<int64_t>() > 0
          ? fmt::format("; {:.1f} ms a job beyond its run",
                        1e3 * s.value("transfer_seconds", 0.0) / s["jobs"].get<double>())
          : std::string());
  for (const auto& w : status["workers"]) {
    const double h = w["held_seconds"].get<double>();
    text += fmt::format(
        "  {:<5} {:>10} {:<12} {:<9} {:>6} jobs {:>4}% idle{}\n", w["name"].get<std::string>(),
        w["launch_id"].get<std::string>(),
        w["node"].get<std::string>().empty() ? "-" : w["node"].get<std::string>(),
        w["state"].get<std::string>(), w["jobs"].get<int64_t>(),
        h > 0 ? fmt::format("{:.0f}", 100.0 * (1.0 - w["busy_seconds"].get<double>() / h))
              : std::string("-"),
        w["why"].get<std::string>().empty() ? "" : "  (" + w["why"].get<std::string>() + ")");
  }
  return text;
}

std::string pool_line(const nlohmann::json& config) {
  if (config.value("kind", "local") == "study")
    return "the study's pool at " + config.value("broker", std::string("?"));
  if (config.value("kind", "local") != "slurm") return "local pool: this machine's one device";
  std::string where =
      config.contains("partition") ? " on partition " + config["partition"].get<std::string>() : "";
  return fmt::format("slurm pool: {} workers{}", config.value("workers", 1), where);
}

}  // namespace headway::cli
