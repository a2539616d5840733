#include "statistics/racing.h"

#include <fmt/format.h>

#include <algorithm>
#include <limits>

namespace headway::statistics {
namespace {

double median_of(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  const size_t n = v.size();
  return n % 2 == 1 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
}

}  // namespace

Result<RaceResult> race(int candidates, const RaceConfig& config,
                        const std::function<double(int)>& read) {
  if (candidates < 1)
    return invalid_input(fmt::format("racing needs candidates, got {}", candidates));
  if (config.initial_readings < 1) {
    return invalid_input(
        fmt::format("initial readings must be >= 1, got {}", config.initial_readings));
  }
  const int64_t first_round = static_cast<int64_t>(candidates) * config.initial_readings;
  if (config.budget < first_round) {
    return invalid_input(
        fmt::format("a budget of {} readings cannot give {} candidates {} readings each",
                    config.budget, candidates, config.initial_readings));
  }
  RaceResult result;
  std::vector<std::vector<double>> samples(static_cast<size_t>(candidates));
  std::vector<int> survivors(static_cast<size_t>(candidates));
  for (int i = 0; i < candidates; ++i) survivors[static_cast<size_t>(i)] = i;
  std::vector<std::vector<int>> eliminated;  // per round, best first
  auto by_median = [&samples](std::vector<int>& ids) {
    std::stable_sort(ids.begin(), ids.end(), [&samples](int a, int b) {
      return median_of(samples[static_cast<size_t>(a)]) <
             median_of(samples[static_cast<size_t>(b)]);
    });
  };
  int64_t r = config.initial_readings;
  while (survivors.size() > 1) {
    const int64_t left = config.budget - result.readings_spent;
    const int64_t per = std::min(r, left / static_cast<int64_t>(survivors.size()));
    if (per < 1) break;
    for (int64_t k = 0; k < per; ++k) {
      for (int id : survivors) {
        samples[static_cast<size_t>(id)].push_back(read(id));
        ++result.readings_spent;
      }
    }
    ++result.rounds;
    by_median(survivors);
    const size_t keep = (survivors.size() + 1) / 2;
    eliminated.emplace_back(survivors.begin() + static_cast<std::ptrdiff_t>(keep), survivors.end());
    survivors.resize(keep);
    if (per < r) break;
    r *= 2;
  }
  result.ranking = survivors;
  for (auto it = eliminated.rbegin(); it != eliminated.rend(); ++it) {
    result.ranking.insert(result.ranking.end(), it->begin(), it->end());
  }
  result.medians.resize(static_cast<size_t>(candidates), std::numeric_limits<double>::quiet_NaN());
  result.readings.resize(static_cast<size_t>(candidates), 0);
  for (int i = 0; i < candidates; ++i) {
    const auto& s = samples[static_cast<size_t>(i)];
    result.readings[static_cast<size_t>(i)] = static_cast<int>(s.size());
    if (!s.empty()) result.medians[static_cast<size_t>(i)] = median_of(s);
  }
  return result;
}

}  // namespace headway::statistics
