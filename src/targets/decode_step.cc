#include "targets/decode_step.h"

#include <fmt/format.h>

namespace headway::targets {

StepRounds read_decode_step(const std::vector<Session*>& sessions,
                            const std::vector<std::string>& names, int rounds, int warmup_rounds,
                            const AfterRound& after_round) {
  StepRounds out;
  for (int round = -warmup_rounds; round < rounds; ++round) {
    std::vector<double> readings;
    for (size_t k = 0; k < sessions.size(); ++k) {
      auto s = sessions[k]->reading(0);
      if (!s) {
        out.cheated = sessions[k]->verify_arms().has_value();
        out.failure = fmt::format("{}: {}", names[k], s.error().message);
        return out;
      }
      readings.push_back(s.value());
    }
    if (round < 0) continue;
    double step = 0.0;
    for (const double r : readings) step += r;
    out.seconds.push_back(std::move(readings));
    out.step_seconds.push_back(step);
    if (!after_round) continue;
    if (std::string failed = after_round(); !failed.empty()) {
      out.failure = fmt::format("after round {}: {}", round + 1, failed);
      return out;
    }
  }
  for (size_t k = 0; k < sessions.size(); ++k) {
    if (auto breach = sessions[k]->verify_arms()) {
      out.cheated = true;
      out.failure = fmt::format("{}: {}", names[k], breach->reason);
      return out;
    }
  }
  return out;
}

}  // namespace headway::targets
