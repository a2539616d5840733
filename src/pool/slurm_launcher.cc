#include "pool/slurm_launcher.h"

#include <fmt/format.h>

#include <optional>
#include <set>
#include <sstream>
#include <string_view>
#include <vector>

#include "common/file_io.h"
#include "common/subprocess.h"

namespace headway::pool {

namespace fs = std::filesystem;

namespace {

constexpr double kClientTimeoutSeconds = 60.0;

std::string shell_quoted(const std::string& s) {
  std::string out = "'";
  for (char c : s) out += c == '\'' ? std::string("'\\''") : std::string(1, c);
  return out + "'";
}

std::string first_line(const std::string& s) { return s.substr(0, s.find('\n')); }

// A non-empty run of decimal digits, as a number; nullopt for anything else.
std::optional<double> parse_count(std::string_view text) {
  if (text.empty() || text.size() > 9) return std::nullopt;
  double n = 0.0;
  for (const char c : text) {
    if (c < '0' || c > '9') return std::nullopt;
    n = n * 10 + (c - '0');
  }
  return n;
}

}  // namespace

SlurmLauncher::SlurmLauncher(SlurmOptions options) : options_(std::move(options)) {}

std::vector<std::string> SlurmLauncher::sbatch_argv(const std::string& name,
                                                    const fs::path& script) const {
  std::vector<std::string> argv = {"sbatch",
                                   "--parsable",
                                   "--job-name=headway-" + name,
                                   "--nodes=1",
                                   "--ntasks=1",
                                   "--no-requeue",  // a lost worker is the pool's to replace
                                   "--output=" + (options_.folder / (name + "-%j.log")).string()};
  if (!options_.partition.empty()) argv.push_back("--partition=" + options_.partition);
  if (!options_.account.empty()) argv.push_back("--account=" + options_.account);
  if (!options_.gres.empty()) argv.push_back("--gres=" + options_.gres);
  if (options_.exclusive) argv.push_back("--exclusive");
  if (!options_.time_limit.empty()) argv.push_back("--time=" + options_.time_limit);
  argv.insert(argv.end(), options_.extra_arguments.begin(), options_.extra_arguments.end());
  argv.push_back(script.string());
  return argv;
}

Result<std::string> SlurmLauncher::start(const std::vector<std::string>& argv,
                                         const std::string& name) {
  std::error_code ec;
  fs::create_directories(options_.folder, ec);
  const fs::path script = options_.folder / (name + ".sh");
  std::string text = "#!/bin/sh\n# A headway worker (src/pool/worker.h).\nexec";
  for (const auto& a : argv) text += " " + shell_quoted(a);
  try {
    write_file(script, text + "\n");
  } catch (const std::exception& e) {
    return environment_error(e.what());
  }
  fs::permissions(script, fs::perms::owner_all, ec);
  const ProcessResult r = run_process(sbatch_argv(name, script), kClientTimeoutSeconds);
  if (!r.ok()) {
    return environment_error(
        fmt::format("sbatch failed for worker {}: {}", name, first_line(r.output + r.error)));
  }
  // --parsable prints "JOBID" or "JOBID;CLUSTER".
  const std::string id = first_line(r.output).substr(0, first_line(r.output).find(';'));
  if (id.empty() || id.find_first_not_of("0123456789") != std::string::npos) {
    return environment_error(fmt::format("sbatch printed no job id: {}", first_line(r.output)));
  }
  return id;
}

void SlurmLauncher::stop(const std::vector<std::string>& ids) {
  if (ids.empty()) return;
  std::vector<std::string> argv = {"scancel"};
  argv.insert(argv.end(), ids.begin(), ids.end());
  (void)run_process(argv, kClientTimeoutSeconds);
}

std::optional<double> parse_slurm_elapsed(std::string_view text) {
  double days = 0.0;
  if (const size_t dash = text.find('-'); dash != std::string_view::npos) {
    const auto d = parse_count(text.substr(0, dash));
    if (!d) return std::nullopt;
    days = *d;
    text.remove_prefix(dash + 1);
  }
  // Up to three fields from the right: seconds, minutes, hours.
  std::vector<double> fields;
  for (size_t start = 0;;) {
    const size_t colon = text.find(':', start);
    const auto v = parse_count(text.substr(start, colon - start));
    if (!v) return std::nullopt;
    fields.push_back(*v);
    if (colon == std::string_view::npos) break;
    start = colon + 1;
  }
  if (fields.size() < 2 || fields.size() > 3) return std::nullopt;
  double seconds = 0.0;
  for (const double f : fields) seconds = seconds * 60 + f;
  return seconds + days * 86400;
}

Result<std::map<std::string, LaunchedWorker>> SlurmLauncher::poll(
    const std::vector<std::string>& ids) {
  std::map<std::string, LaunchedWorker> out;
  if (ids.empty()) return out;
  // Every job of this user: a finished job's id given with -j makes squeue fail.
  const ProcessResult r =
      run_process({"squeue", "--me", "--noheader", "--format=%i|%T|%N|%M"}, kClientTimeoutSeconds);
  if (!r.ok()) return environment_error("squeue failed: " + first_line(r.output + r.error));
  const std::set<std::string> wanted(ids.begin(), ids.end());
  std::istringstream lines(r.output);
  for (std::string line; std::getline(lines, line);) {
    const size_t a = line.find('|');
    const size_t b = line.find('|', a + 1);
    const size_t c = line.find('|', b + 1);
    if (a == std::string::npos || b == std::string::npos || c == std::string::npos) continue;
    const std::string id = line.substr(0, a);
    if (wanted.count(id)) {
      out[id] = {line.substr(a + 1, b - a - 1), line.substr(b + 1, c - b - 1),
                 parse_slurm_elapsed(std::string_view(line).substr(c + 1))};
    }
  }
  return out;
}

}  // namespace headway::pool
