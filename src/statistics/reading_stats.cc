#include "statistics/reading_stats.h"

#include <algorithm>
#include <cmath>
#include <map>
#include <optional>
#include <string>
#include <tuple>

namespace headway::statistics {
namespace {

struct PairSlots {
  std::optional<double> head;       // ln seconds
  std::optional<double> candidate;  // ln seconds
  int heads = 0;
  int candidates = 0;
  Arm first = Arm::kHead;
  bool complete() const { return heads == 1 && candidates == 1; }
};

double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  const size_t n = v.size();
  return n % 2 == 1 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
}

}  // namespace

void ReadingStatsAccumulator::add_decision(std::span<const Reading> readings) {
  ++decisions_;
  std::map<int, PairSlots> pairs;
  std::vector<double> head_seconds;
  for (const Reading& r : readings) {
    PairSlots& slot = pairs[r.pair_index];
    const double ln = std::log(r.seconds);
    if (r.arm == Arm::kHead) {
      slot.head = ln;
      ++slot.heads;
      head_seconds.push_back(r.seconds);
    } else {
      slot.candidate = ln;
      ++slot.candidates;
    }
    if (r.position == 0) slot.first = r.arm;
  }
  if (head_seconds.size() >= 2) {
    const double n = static_cast<double>(head_seconds.size());
    double mean = 0.0;
    for (double t : head_seconds) mean += t;
    mean /= n;
    double ss = 0.0;
    for (double t : head_seconds) ss += (t - mean) * (t - mean);
    head_cvs_.push_back(std::sqrt(ss / (n - 1.0)) / mean);
  }
  std::vector<double> xs;
  std::vector<double> ys;
  std::vector<double> ds;
  for (const auto& [index, slot] : pairs) {
    if (!slot.complete()) continue;
    xs.push_back(*slot.head);
    ys.push_back(*slot.candidate);
    const double d = *slot.candidate - *slot.head;
    ds.push_back(d);
    ++n_;
    sum_d_ += d;
    sum_d2_ += d * d;
    if (slot.first == Arm::kCandidate) ++candidate_first_;
    if (d < 0.0) ++d_negative_;
    sum_second_minus_first_ += slot.first == Arm::kHead ? d : -d;
  }
  for (size_t i = 1; i < ds.size(); ++i) {
    ++lag_n_;
    lag_sum_ += ds[i - 1] + ds[i];
    lag_cross_ += ds[i - 1] * ds[i];
  }
  if (xs.size() >= 2) {
    double mx = 0.0;
    double my = 0.0;
    for (size_t i = 0; i < xs.size(); ++i) {
      mx += xs[i];
      my += ys[i];
    }
    mx /= static_cast<double>(xs.size());
    my /= static_cast<double>(ys.size());
    for (size_t i = 0; i < xs.size(); ++i) {
      sxx_ += (xs[i] - mx) * (xs[i] - mx);
      syy_ += (ys[i] - my) * (ys[i] - my);
      sxy_ += (xs[i] - mx) * (ys[i] - my);
    }
  }
}

ReadingStats ReadingStatsAccumulator::result() const {
  ReadingStats s;
  s.decisions = decisions_;
  s.pairs = n_;
  if (!head_cvs_.empty()) s.head_cv = median(head_cvs_);
  if (sxx_ > 0.0 && syy_ > 0.0) s.in_pair_rho = sxy_ / std::sqrt(sxx_ * syy_);
  if (n_ > 0) {
    const double n = static_cast<double>(n_);
    s.candidate_first_fraction = static_cast<double>(candidate_first_) / n;
    s.d_negative_fraction = static_cast<double>(d_negative_) / n;
    s.second_vs_first_pct = 100.0 * std::expm1(sum_second_minus_first_ / n);
    const double m = sum_d_ / n;
    const double denominator = sum_d2_ - n * m * m;
    if (lag_n_ > 0 && denominator > 0.0) {
      s.lag1_autocorr =
          (lag_cross_ - m * lag_sum_ + m * m * static_cast<double>(lag_n_)) / denominator;
    }
  }
  return s;
}

std::map<int64_t, std::vector<double>> log_ratios_by_test(std::span<const Reading> readings) {
  std::map<int64_t, std::map<int, PairSlots>> tests;
  for (const Reading& r : readings) {
    PairSlots& slot = tests[r.test_id][r.pair_index];
    if (r.arm == Arm::kHead) {
      slot.head = std::log(r.seconds);
      ++slot.heads;
    } else {
      slot.candidate = std::log(r.seconds);
      ++slot.candidates;
    }
  }
  std::map<int64_t, std::vector<double>> out;
  for (const auto& [test, pairs] : tests) {
    std::vector<double>& d = out[test];
    for (const auto& [index, slot] : pairs) {
      if (slot.complete()) d.push_back(*slot.candidate - *slot.head);
    }
  }
  return out;
}

ReadingStats summarize_readings(std::span<const Reading> readings) {
  std::map<std::tuple<std::string, std::string, int64_t>, size_t> group_of;
  std::vector<std::vector<Reading>> groups;
  for (const Reading& r : readings) {
    const auto key = std::make_tuple(r.kernel, r.node, r.test_id);
    auto [it, inserted] = group_of.emplace(key, groups.size());
    if (inserted) groups.emplace_back();
    groups[it->second].push_back(r);
  }
  ReadingStatsAccumulator acc;
  for (const auto& group : groups) acc.add_decision(group);
  return acc.result();
}

}  // namespace headway::statistics
