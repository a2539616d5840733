#pragma once
// Spearman's rank correlation: how well one figure orders items the way another does.
#include <optional>
#include <vector>

namespace headway::statistics {

// Ranks 1..n of `values`, ties getting the mean of the ranks they span.
std::vector<double> ranks(const std::vector<double>& values);

// Pearson correlation of the ranks of x and y, in [-1, 1]. nullopt when the sizes differ, fewer
// than 3 pairs are given, or either side has no variation.
std::optional<double> spearman(const std::vector<double>& x, const std::vector<double>& y);

}  // namespace headway::statistics
