#include "cli/pool_options.h"

#include <fmt/format.h>
#include <unistd.h>

#include <filesystem>

#include "cli/cli_support.h"
#include "pool/slurm_launcher.h"
#include "pool/worker_pool.h"

namespace headway::cli {

namespace fs = std::filesystem;

void add_pool_options(CLI::App& cmd, PoolArgs& args) {
  cmd.add_option("--pool", args.kind,
                 "where device work runs: local (this machine) or slurm (a worker per device, "
                 "started with sbatch; docs/POOL.md); default: the workspace's, else local")
      ->check(CLI::IsMember({"local", "slurm"}));
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

nlohmann::json pool_config(store::Workspace& ws, const PoolArgs& args) {
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

std::shared_ptr<pool::DevicePool> start_pool(const nlohmann::json& config, targets::Target& target,
                                             const fs::path& folder) {
  if (config.value("kind", "local") != "slurm") return nullptr;
  if (!target.identity().found) throw EnvironmentError(target.identity().error);
  if (const std::string why = target.pool_refusal(); !why.empty()) {
    fmt::print(stderr, "headway: warning: no slurm pool is started: {}\n", why);
    return nullptr;
  }
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
  std::error_code ec;
  options.headway_binary = fs::read_symlink("/proc/self/exe", ec).string();
  if (ec) throw EnvironmentError("cannot find this headway's own binary: " + ec.message());
  options.lease_seconds = config.value("lease_seconds", 60.0);
  options.status_file = folder / "status.json";
  fs::remove(options.status_file, ec);  // an earlier run's
  auto started = pool::WorkerPool::start(std::make_unique<pool::SlurmLauncher>(slurm), options);
  if (!started) throw EnvironmentError("the slurm pool cannot start: " + started.error().message);
  std::shared_ptr<pool::DevicePool> devices(std::move(*started));
  fmt::print(stderr, "headway: {}\n", pool_line(config));
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
  if (config.value("kind", "local") != "slurm") return "local pool: this machine's one device";
  std::string where =
      config.contains("partition") ? " on partition " + config["partition"].get<std::string>() : "";
  return fmt::format("slurm pool: {} workers{}", config.value("workers", 1), where);
}

}  // namespace headway::cli
