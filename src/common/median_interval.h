#pragma once
// What a handful of timed readings can support: a distribution-free confidence interval for
// their median, and a test for readings that fall in two groups (bimodal readings, e.g. a short
// multi-threaded kernel whose sleeping worker did or did not wake in time).
#include <span>

namespace headway {

// The interval [x_(r), x_(n+1-r)] between two order statistics of n readings (1-based ranks,
// sorted ascending). For independent readings of any continuous distribution it holds the true
// median with probability exactly `coverage` = 1 - 2 P(B <= r - 1), B ~ Binomial(n, 1/2): the
// true median lies below x_(r) only when fewer than r readings fall below it.
struct MedianInterval {
  double low = 0.0;
  double high = 0.0;
  int rank = 0;           // r; 0 when there are no readings
  double coverage = 0.0;  // the exact coverage of these ranks (0 with no readings)
};

// The narrowest symmetric order-statistic interval whose coverage is at least `confidence`
// (0 < confidence < 1). When n is too small for it (n <= 5 at 95%: [min, max] covers with
// probability 1 - 2^(1-n), e.g. 93.75% at n = 5, 50% at n = 2, 0 at n = 1) the interval is
// [min, max] and `coverage` says what it really is.
MedianInterval median_interval(std::span<const double> values, double confidence = 0.95);

// The exact coverage of ranks (r, n + 1 - r) for n readings; 1 <= r <= (n + 1) / 2.
double median_interval_coverage(int n, int r);

// What two medians' intervals support of their ratio (e.g. a speedup: the baseline's median over
// the head's): [a.low / b.high, a.high / b.low] holds the ratio of the true medians whenever
// both intervals hold theirs, so with probability at least 1 - (1 - a.coverage) - (1 -
// b.coverage) whatever the dependence between the two (90% for two 95% intervals).
// Requires positive intervals.
struct RatioInterval {
  double low = 0.0;
  double high = 0.0;
  double coverage = 0.0;  // the lower bound above, at least 0
  bool above_one() const { return low > 1.0; }
  bool below_one() const { return high < 1.0; }
};
RatioInterval ratio_interval(const MedianInterval& a, const MedianInterval& b);
// What readings taken in turn support of the ratio of their medians: the median_interval of the
// pairs' ratios a[i] / b[i] at `confidence`. Readings in turn share the machine's fast and slow
// spells, which each pair's ratio cancels and two separate intervals add. `a` and `b` are
// positive and of one length (at least 1).
RatioInterval paired_ratio_interval(std::span<const double> a, std::span<const double> b,
                                    double confidence = 0.95);

// Two groups in the readings. The test works on the logarithms of the readings (timings are
// multiplicative: a log-normal spread is the unimodal case): it takes the split of the sorted
// log readings into a lower and an upper group, each of at least max(2, ceil(n / 10)) readings,
// that explains the largest fraction of their variance (`separation`, between-group sum of
// squares over the total: Otsu's criterion, exact two-means in one dimension), and calls the
// readings bimodal when
//   - separation exceeds `critical`, the 99th percentile of the same statistic over 4000 normal
//     samples of the same size (a fixed seed; sizes above 200 use size 200's, which is larger,
//     so stricter), so that a normal (in logs: log-normal) sample is called bimodal about 1% of
//     the time at every n, and
//   - the two groups' medians (`low_mode`, `high_mode`) are at least 5% apart, so that a
//     split the median cannot feel (a timer's granularity) is not reported.
// Needs n >= 8 and positive readings; otherwise never bimodal (separation 0).
struct Bimodality {
  bool bimodal = false;
  double low_mode = 0.0;  // median of the lower group (of the readings as given)
  double high_mode = 0.0;
  int low_count = 0;
  int high_count = 0;
  double separation = 0.0;
  double critical = 0.0;
};
inline constexpr int kMinBimodalReadings = 8;
Bimodality test_bimodality(std::span<const double> values);

// The critical separation for n readings (see Bimodality); deterministic.
double bimodality_critical(int n);

}  // namespace headway
