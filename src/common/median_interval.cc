#include "common/median_interval.h"

#include <algorithm>
#include <cmath>
#include <map>
#include <mutex>
#include <vector>

#include "common/rng.h"
#include "common/stats.h"

namespace headway {

namespace {

// P(B = k) for B ~ Binomial(n, 1/2).
double half_binomial_pmf(int n, int k) {
  return std::exp(std::lgamma(n + 1.0) - std::lgamma(k + 1.0) - std::lgamma(n - k + 1.0) -
                  n * std::log(2.0));
}

struct Split {
  double separation = 0.0;
  int low_count = 0;  // readings in the lower group (of the sorted values)
};

// The best split of sorted `x` into two groups of at least `min_group` each (see Bimodality).
Split best_split(const std::vector<double>& x, int min_group) {
  const int n = static_cast<int>(x.size());
  std::vector<double> prefix(x.size() + 1, 0.0);
  for (int i = 0; i < n; ++i)
    prefix[static_cast<size_t>(i) + 1] = prefix[static_cast<size_t>(i)] + x[static_cast<size_t>(i)];
  const double mu = prefix.back() / n;
  double total = 0.0;
  for (const double v : x) total += (v - mu) * (v - mu);
  Split best;
  if (!(total > 0.0)) return best;
  for (int k = min_group; k <= n - min_group; ++k) {
    const double a = prefix[static_cast<size_t>(k)] / k;
    const double b = (prefix.back() - prefix[static_cast<size_t>(k)]) / (n - k);
    const double between = k * (a - mu) * (a - mu) + (n - k) * (b - mu) * (b - mu);
    if (between / total > best.separation) best = {between / total, k};
  }
  return best;
}

int min_group_of(int n) { return std::max(2, (n + 9) / 10); }

constexpr int kCriticalSamples = 4000;
constexpr int kCriticalMaxN = 200;

double simulate_critical(int n) {
  Rng rng(mix_seed(0x6d6f646573ULL, static_cast<uint64_t>(n)));
  std::vector<double> stats;
  stats.reserve(kCriticalSamples);
  std::vector<double> x(static_cast<size_t>(n));
  for (int s = 0; s < kCriticalSamples; ++s) {
    for (auto& v : x) v = rng.normal();
    std::sort(x.begin(), x.end());
    stats.push_back(best_split(x, min_group_of(n)).separation);
  }
  const size_t at = static_cast<size_t>(0.99 * kCriticalSamples);
  std::nth_element(stats.begin(), stats.begin() + static_cast<std::ptrdiff_t>(at), stats.end());
  return stats[at];
}

}  // namespace

double median_interval_coverage(int n, int r) {
  if (n <= 0 || r < 1 || 2 * r > n + 1) return 0.0;
  double below = 0.0;  // P(B <= r - 1)
  for (int k = 0; k < r; ++k) below += half_binomial_pmf(n, k);
  return std::clamp(1.0 - 2.0 * below, 0.0, 1.0);
}

MedianInterval median_interval(std::span<const double> values, double confidence) {
  MedianInterval out;
  if (values.empty()) return out;
  std::vector<double> v(values.begin(), values.end());
  std::sort(v.begin(), v.end());
  const int n = static_cast<int>(v.size());
  // The largest r whose 2 P(B <= r - 1) stays within 1 - confidence; r = 1 when none does.
  int r = 1;
  double below = half_binomial_pmf(n, 0);  // P(B <= r - 1) for r = 1
  while (2 * (r + 1) <= n + 1) {
    const double next = below + half_binomial_pmf(n, r);
    if (2.0 * next > 1.0 - confidence) break;
    below = next;
    ++r;
  }
  out.rank = r;
  out.low = v[static_cast<size_t>(r - 1)];
  out.high = v[static_cast<size_t>(n - r)];
  out.coverage = std::clamp(1.0 - 2.0 * below, 0.0, 1.0);
  return out;
}

RatioInterval ratio_interval(const MedianInterval& a, const MedianInterval& b) {
  return {a.low / b.high, a.high / b.low, std::max(0.0, a.coverage + b.coverage - 1.0)};
}

RatioInterval paired_ratio_interval(std::span<const double> a, std::span<const double> b,
                                    double confidence) {
  std::vector<double> ratios;
  ratios.reserve(a.size());
  for (size_t i = 0; i < a.size() && i < b.size(); ++i) ratios.push_back(a[i] / b[i]);
  const MedianInterval m = median_interval(ratios, confidence);
  return {m.low, m.high, m.coverage};
}

double bimodality_critical(int n) {
  n = std::min(n, kCriticalMaxN);
  static std::mutex mutex;
  static std::map<int, double> cache;
  const std::lock_guard lock(mutex);
  auto found = cache.find(n);
  if (found == cache.end()) found = cache.emplace(n, simulate_critical(n)).first;
  return found->second;
}

Bimodality test_bimodality(std::span<const double> values) {
  Bimodality out;
  const int n = static_cast<int>(values.size());
  if (n < kMinBimodalReadings) return out;
  std::vector<double> sorted(values.begin(), values.end());
  std::sort(sorted.begin(), sorted.end());
  if (!(sorted.front() > 0.0)) return out;
  std::vector<double> logs;
  logs.reserve(sorted.size());
  for (const double v : sorted) logs.push_back(std::log(v));
  const Split split = best_split(logs, min_group_of(n));
  if (split.low_count == 0) return out;  // every reading equal
  const auto cut = sorted.begin() + split.low_count;
  out.low_count = split.low_count;
  out.high_count = n - split.low_count;
  out.low_mode = median(std::vector<double>(sorted.begin(), cut));
  out.high_mode = median(std::vector<double>(cut, sorted.end()));
  out.separation = split.separation;
  out.critical = bimodality_critical(n);
  out.bimodal = out.separation > out.critical && out.high_mode >= 1.05 * out.low_mode;
  return out;
}

}  // namespace headway
