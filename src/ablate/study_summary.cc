#include "ablate/study_summary.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <limits>

#include "common/stats.h"

namespace headway::ablate {

namespace {

constexpr double kDifferenceArmConfidence = 0.975;
constexpr double kNever = std::numeric_limits<double>::infinity();

std::optional<double> geomean_of(const nlohmann::json& kernels, const char* key) {
  if (!kernels.is_array() || kernels.empty()) return std::nullopt;
  double log_sum = 0;
  for (const auto& k : kernels) {
    const auto v = k.find(key);
    if (v == k.end() || !v->is_number() || !(v->get<double>() > 0)) return std::nullopt;
    log_sum += std::log(v->get<double>());
  }
  return std::exp(log_sum / static_cast<double>(kernels.size()));
}

std::string number(double x) {
  if (x == kNever) return "never";
  return std::fabs(x) >= 100 || x == std::floor(x) ? fmt::format("{:.0f}", x)
                                                   : fmt::format("{:.3g}", x);
}

}  // namespace

std::map<std::string, double> run_figures(const nlohmann::json& result) {
  std::map<std::string, double> out;
  const auto kernels = result.value("kernels", nlohmann::json());
  if (auto r = geomean_of(kernels, "ratio_to_floor")) out["ratio_to_floor"] = *r;
  if (auto s = geomean_of(kernels, "speedup")) out["speedup"] = *s;
  const auto number_at = [&](const nlohmann::json& object, const char* key, const char* as) {
    if (object.is_object() && object.contains(key) && object[key].is_number())
      out[as] = object[key].get<double>();
  };
  number_at(result, "tests", "tests");
  number_at(result, "accepted", "accepted");
  number_at(result, "device_seconds", "device_seconds");
  for (const char* key : {"device_seconds_to_1_25x", "device_seconds_to_1_10x"}) {
    if (!result.contains(key) || !result.contains("device_seconds")) continue;  // an older result
    out[key] = result[key].is_number() ? result[key].get<double>()
                                       : std::numeric_limits<double>::infinity();
  }
  const auto truth = result.value("truth", nlohmann::json());
  number_at(truth, "false_accepts", "false_accepts");
  number_at(truth, "false_rejects", "false_rejects");
  const auto agent = result.value("agent", nlohmann::json());
  number_at(agent, "calls", "agent_calls");
  number_at(agent, "cost_usd", "agent_cost_usd");
  return out;
}

std::vector<ArmSummary> summarize(const Study& study) {
  std::map<std::string, std::map<std::string, std::vector<double>>> values;  // arm, figure
  std::vector<ArmSummary> arms;
  for (const auto& arm : study.spec().arms) {
    ArmSummary a;
    a.arm = arm;
    for (int run = 0; run < study.spec().runs; ++run) {
      const auto result = study.result(arm, run);
      if (!result) continue;
      ++a.runs_done;
      for (const auto& [figure, v] : run_figures(*result)) values[arm][figure].push_back(v);
    }
    for (const auto& [figure, v] : values[arm]) {
      FigureSummary f;
      f.runs = static_cast<int>(v.size());
      f.never = static_cast<int>(std::count(v.begin(), v.end(), kNever));
      f.median = median(v);
      f.interval = median_interval(v);
      a.figures[figure] = f;
    }
    arms.push_back(std::move(a));
  }
  const auto full = values.find("full");
  if (full == values.end()) return arms;
  for (auto& a : arms) {
    if (a.arm == "full") continue;
    for (auto& [figure, f] : a.figures) {
      const auto base = full->second.find(figure);
      if (base == full->second.end()) continue;
      const MedianInterval mine = median_interval(values[a.arm][figure], kDifferenceArmConfidence);
      const MedianInterval theirs = median_interval(base->second, kDifferenceArmConfidence);
      const double full_median = median(base->second);
      if (!std::isfinite(f.median) || !std::isfinite(full_median)) continue;
      f.difference = f.median - full_median;
      f.difference_low = mine.low - theirs.high;
      f.difference_high = mine.high - theirs.low;
      f.difference_coverage = std::max(0.0, mine.coverage + theirs.coverage - 1.0);
    }
  }
  return arms;
}

nlohmann::json to_json(const std::vector<ArmSummary>& arms) {
  nlohmann::json out = nlohmann::json::array();
  for (const auto& a : arms) {
    nlohmann::json figures = nlohmann::json::object();
    for (const auto& [name, f] : a.figures) {
      // JSON has no infinity: a median or bound that never got there is null.
      nlohmann::json j = {{"runs", f.runs},
                          {"never", f.never},
                          {"median", f.median},
                          {"interval", {f.interval.low, f.interval.high}},
                          {"coverage", f.interval.coverage}};
      if (f.difference) {
        j["difference_from_full"] = {{"median", *f.difference},
                                     {"interval", {f.difference_low, f.difference_high}},
                                     {"coverage", f.difference_coverage}};
      }
      figures[name] = j;
    }
    out.push_back({{"arm", a.arm}, {"runs_done", a.runs_done}, {"figures", figures}});
  }
  return out;
}

std::string render(const Study& study, const std::vector<ArmSummary>& arms, bool markdown) {
  const StudySpec& s = study.spec();
  std::string out = fmt::format(
      "study {}: target {}{}, budget {} a run, {} runs an arm, seed {}\n", study.dir().string(),
      s.target, s.kernels.empty() ? "" : ", kernels " + s.kernels, s.budget, s.runs, s.seed);
  for (const char* figure : kFigures) {
    if (std::none_of(arms.begin(), arms.end(),
                     [&](const ArmSummary& a) { return a.figures.count(figure) > 0; }))
      continue;  // e.g. no agent, no truth
    out += markdown ? fmt::format(
                          "\n### {}\n\n| arm | runs | median | 95% interval | "
                          "difference from full [interval, coverage] |\n|---|---|---|---|---|\n",
                          figure)
                    : fmt::format("\n{}\n  {:<28} {:>4} {:>9}  {:<22} {}\n", figure, "arm", "runs",
                                  "median", "interval (coverage)", "difference from full");
    for (const auto& a : arms) {
      const auto f = a.figures.find(figure);
      if (f == a.figures.end()) {
        out += markdown ? fmt::format("| {} | 0 | | | |\n", a.arm)
                        : fmt::format("  {:<28} {:>4}\n", a.arm, 0);
        continue;
      }
      const FigureSummary& v = f->second;
      const std::string interval = fmt::format("[{}, {}] ({:.0f}%)", number(v.interval.low),
                                               number(v.interval.high), 100 * v.interval.coverage);
      const std::string difference =
          v.difference
              ? fmt::format("{:+.3g} [{:+.3g}, {:+.3g}, {:.0f}%]", *v.difference, v.difference_low,
                            v.difference_high, 100 * v.difference_coverage)
              : "";
      const std::string runs =
          v.never ? fmt::format("{} ({} never)", v.runs, v.never) : fmt::format("{}", v.runs);
      out += markdown ? fmt::format("| {} | {} | {} | {} | {} |\n", a.arm, runs, number(v.median),
                                    interval, difference)
                      : fmt::format("  {:<28} {:>4} {:>9}  {:<22} {}\n", a.arm, runs,
                                    number(v.median), interval, difference);
    }
  }
  return out;
}

}  // namespace headway::ablate
