#include "ablate/study.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <iterator>
#include <set>
#include <system_error>

#include "common/duration.h"
#include "common/file_io.h"
#include "common/json_whole.h"
#include "common/rng.h"
#include "loop/optimize_switches.h"
#include "statistics/rule_kind.h"

namespace headway::ablate {

namespace fs = std::filesystem;

namespace {

constexpr std::string_view kWithout = "without-";
constexpr std::string_view kRule = "rule-";
constexpr std::string_view kBeam = "beam-";
constexpr int kBeamWidths[] = {2, 3, 4};
// The optimize options a study or its arms set on each run.
constexpr std::string_view kOwnOptions[] = {"--workspace", "--budget",  "--seed",
                                            "--json",      "--kernels", "--target",
                                            "--without",   "--beam",    "--acceptance-rule"};
constexpr uint64_t kRunSeedStream = 0xab1a7e;

}  // namespace

std::vector<std::string> known_arms() {
  std::vector<std::string> out{"full"};
  for (const auto& part : loop::switchable_parts()) out.push_back(std::string(kWithout) + part);
  for (statistics::RuleKind kind : statistics::kAllRuleKinds) {
    if (kind != statistics::RuleKind::kBetting)
      out.push_back(std::string(kRule) + std::string(statistics::to_string(kind)));
  }
  for (const int k : kBeamWidths) out.push_back(fmt::format("{}{}", kBeam, k));
  return out;
}

Result<Arm> parse_arm(std::string_view name) {
  const auto known = known_arms();
  if (std::find(known.begin(), known.end(), name) == known.end()) {
    return invalid_input(fmt::format("unknown arm '{}' (known: {})", name, fmt::join(known, ", ")));
  }
  Arm arm{std::string(name), {}};
  if (name.substr(0, kWithout.size()) == kWithout) {
    arm.optimize_args = {"--without", std::string(name.substr(kWithout.size()))};
  } else if (name.substr(0, kRule.size()) == kRule) {
    arm.optimize_args = {"--acceptance-rule", std::string(name.substr(kRule.size()))};
  } else if (name.substr(0, kBeam.size()) == kBeam) {
    arm.optimize_args = {"--beam", std::string(name.substr(kBeam.size()))};
  }
  return arm;
}

Status validate(const StudySpec& s) {
  if (s.arms.empty()) return invalid_input("a study needs at least one arm");
  std::set<std::string> seen;
  for (const auto& a : s.arms) {
    if (auto arm = parse_arm(a); !arm) return arm.error();
    if (!seen.insert(a).second) return invalid_input(fmt::format("arm '{}' is named twice", a));
  }
  if (s.runs < 1) return invalid_input(fmt::format("runs must be 1 or more, got {}", s.runs));
  const auto seconds = parse_duration_seconds(s.budget);
  if (!seconds || *seconds <= 0) {
    return invalid_input(
        fmt::format("the budget '{}' does not parse (examples: 90s, 12m, 1h30m)", s.budget));
  }
  if (s.target.empty()) return invalid_input("a study needs a target");
  if (s.target == "command" && s.manifest.empty())
    return invalid_input("the command target needs a manifest (e.g. packs/standin/target.toml)");
  if (s.target != "command" && !s.manifest.empty())
    return invalid_input("a manifest is for the command target");
  for (const auto& a : s.optimize_args) {
    const std::string option = a.substr(0, a.find('='));
    if (std::find(std::begin(kOwnOptions), std::end(kOwnOptions), option) !=
        std::end(kOwnOptions)) {
      return invalid_input(fmt::format(
          "{} is the study's or an arm's to give, not one of the options every run gets", option));
    }
    if (std::find(std::begin(kPoolOptions), std::end(kPoolOptions), option) !=
        std::end(kPoolOptions)) {
      return invalid_input(fmt::format(
          "{} in the options every run gets: the runs of a study share one pool, given to "
          "headway ablate itself (--pool slurm --workers N ...; docs/ABLATIONS.md)",
          option));
    }
  }
  const std::string pool = s.pool.is_object() ? s.pool.value("kind", "") : "";
  if (pool != "local" && pool != "slurm")
    return invalid_input(fmt::format("a study's pool is local or slurm, not {}", s.pool.dump()));
  return {};
}

nlohmann::json to_json(const StudySpec& s) {
  return {{"target", s.target},   {"manifest", s.manifest},
          {"kernels", s.kernels}, {"budget", s.budget},
          {"runs", s.runs},       {"seed", s.seed},
          {"arms", s.arms},       {"optimize_args", s.optimize_args},
          {"pool", s.pool}};
}

Result<StudySpec> study_spec_from_json(const nlohmann::json& j) {
  try {
    StudySpec s;
    s.target = j.at("target").get<std::string>();
    s.manifest = j.at("manifest").get<std::string>();
    s.kernels = j.at("kernels").get<std::string>();
    s.budget = j.at("budget").get<std::string>();
    s.runs = whole<int>(j.at("runs"));
    s.seed = whole<uint64_t>(j.at("seed"));
    s.arms = j.at("arms").get<std::vector<std::string>>();
    s.optimize_args = j.value("optimize_args", std::vector<std::string>{});
    s.pool = j.value("pool", s.pool);
    if (auto valid = validate(s); !valid) return valid.error();
    return s;
  } catch (const nlohmann::json::exception& e) {
    return invalid_input(fmt::format("the study's spec is not valid: {}", e.what()));
  }
}

Result<Study> Study::create_or_open(const fs::path& dir, const std::optional<StudySpec>& spec,
                                    const std::optional<std::vector<std::string>>& compared) {
  const fs::path file = dir / "study.json";
  std::error_code ec;
  if (!fs::exists(file, ec)) {
    if (!spec) return invalid_input(fmt::format("{} holds no study (no study.json)", dir.string()));
    if (auto valid = validate(*spec); !valid) return valid.error();
    try {
      write_file_creating_folders(file, to_json(*spec).dump(2) + "\n");
    } catch (const std::exception& e) {
      return environment_error(fmt::format("cannot create the study: {}", e.what()));
    }
    return Study(dir, *spec);
  }
  const auto text = read_file(file);
  if (!text) return environment_error(fmt::format("cannot read {}", file.string()));
  const auto parsed = nlohmann::json::parse(*text, nullptr, false);
  if (parsed.is_discarded()) return invalid_input(fmt::format("{} is not JSON", file.string()));
  auto stored = study_spec_from_json(parsed);
  if (!stored) return Error{stored.error().code, file.string() + ": " + stored.error().message};
  if (spec) {
    const nlohmann::json want = to_json(*spec), have = to_json(stored.value());
    for (const auto& [key, value] : have.items()) {
      const bool checked =
          !compared || std::find(compared->begin(), compared->end(), key) != compared->end();
      if (checked && want[key] != value) {
        return invalid_input(fmt::format(
            "the study in {} has {} {}, not {}: resume it without that option, or use another "
            "folder",
            dir.string(), key, value.dump(), want[key].dump()));
      }
    }
  }
  return Study(dir, std::move(stored.value()));
}

fs::path Study::run_dir(const std::string& arm, int run) const {
  return dir_ / "runs" / arm / std::to_string(run);
}

uint64_t Study::run_seed(int run) const {
  const uint64_t seed = mix_seed(mix_seed(spec_.seed, kRunSeedStream), static_cast<uint64_t>(run));
  return seed == 0 ? 1 : seed;
}

std::optional<nlohmann::json> Study::result(const std::string& arm, int run) const {
  const auto text = read_file(run_dir(arm, run) / "result.json");
  if (!text) return std::nullopt;
  auto j = nlohmann::json::parse(*text, nullptr, false);
  if (j.is_discarded() || !j.is_object()) return std::nullopt;
  return j;
}

std::vector<std::pair<std::string, int>> Study::pending() const {
  std::vector<std::pair<std::string, int>> out;
  for (int run = 0; run < spec_.runs; ++run) {
    for (const auto& arm : spec_.arms) {
      if (!result(arm, run)) out.emplace_back(arm, run);
    }
  }
  return out;
}

}  // namespace headway::ablate
