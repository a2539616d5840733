#pragma once
// Summary statistics of readings.
#include <span>

namespace headway {

double median(std::span<const double> values);  // 0 for an empty span
// The standard deviation of normal values over their median absolute deviation: a median of
// absolute deviations times this estimates a standard deviation robustly.
inline constexpr double kNormalSdPerMad = 1.4826;
double mean(std::span<const double> values);  // 0 for an empty span
// Sample standard deviation over the mean (0 with fewer than two values or a zero mean).
double coefficient_of_variation(std::span<const double> values);

}  // namespace headway
