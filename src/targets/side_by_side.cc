#include "targets/side_by_side.h"

#include <fmt/format.h>

#include "common/stats.h"

namespace headway::targets {

std::vector<Timing> read_side_by_side(Session& session, const std::vector<Artifact>& artifacts,
                                      int readings, int warmup_rounds) {
  std::vector<Timing> out(artifacts.size());
  auto fail_all = [&](const std::string& why, bool cheated) {
    for (auto& t : out) {
      t.failure = why;
      t.cheated = cheated;
      t.accounting = session.accounting();
    }
    return out;
  };
  const size_t n = artifacts.size();
  for (int round = -warmup_rounds; round < readings; ++round) {
    for (size_t k = 0; k < n; ++k) {
      const size_t i = (static_cast<size_t>(round + warmup_rounds) + k) % n;
      auto s = session.reading(static_cast<int>(i));
      if (!s) {
        const bool cheated = session.verify_arms().has_value();
        return fail_all(fmt::format("{}: {}", artifacts[i].id, s.error().message), cheated);
      }
      if (round >= 0) out[i].seconds.push_back(s.value());
    }
  }
  if (auto breach = session.verify_arms()) {
    return fail_all(
        fmt::format("{}: {}", artifacts[static_cast<size_t>(breach->arm)].id, breach->reason),
        true);
  }
  for (auto& t : out) {
    t.median_seconds = median(t.seconds);
    t.cv = coefficient_of_variation(t.seconds);
  }
  const nlohmann::json accounting = session.accounting();
  for (auto& t : out) t.accounting = accounting;
  return out;
}

}  // namespace headway::targets
