#include "targets/sim/sim_landscape.h"

#include <fmt/format.h>

#include <cmath>
#include <optional>
#include <sstream>
#include <vector>

#include "common/hash.h"

namespace headway::sim {

namespace {

std::vector<std::string> words_of(const std::string& line) {
  std::istringstream in(line);
  std::vector<std::string> w;
  for (std::string s; in >> s;) w.push_back(s);
  return w;
}

// Removes a trailing "when P_NAME=v" from `w`; false when its condition does not hold.
bool condition_holds(std::vector<std::string>& w, const std::map<std::string, int>& params) {
  if (w.size() < 3 || w[w.size() - 2] != "when") return true;
  const std::string cond = w.back();
  w.resize(w.size() - 2);
  const size_t eq = cond.find('=');
  if (eq == std::string::npos) return false;
  const auto it = params.find(cond.substr(0, eq));
  return it != params.end() && std::to_string(it->second) == cond.substr(eq + 1);
}

}  // namespace

std::string_view to_string(SimModel::Behaviour behaviour) {
  switch (behaviour) {
    case SimModel::Behaviour::kCorrect:
      return "correct";
    case SimModel::Behaviour::kWrong:
      return "wrong";
    case SimModel::Behaviour::kCrash:
      return "crash";
    case SimModel::Behaviour::kHang:
      return "hang";
  }
  return "correct";
}

SimModel simulate_source(std::string_view source) {
  SimModel m;
  std::vector<std::string> lines;
  {
    std::istringstream in{std::string(source)};
    for (std::string line; std::getline(in, line);) lines.push_back(line);
  }
  // Parameters first: conditions may name any of them.
  for (const auto& line : lines) {
    const auto w = words_of(line);
    if (w.size() == 3 && w[0] == "#define" && w[1].rfind("P_", 0) == 0) {
      try {
        m.params[w[1]] = std::stoi(w[2]);
      } catch (const std::exception&) {
      }
    }
  }
  bool have_factor = false;
  std::optional<double> believed;                  // sim-cost
  std::map<std::string, double> penalty;           // sim-best, by parameter
  std::map<std::string, double> believed_penalty;  // sim-cost-best, by parameter
  // 1 + p |log2(value / best)| for a parameter the source sets; nullopt otherwise.
  const auto penalty_of = [&](const std::vector<std::string>& w) -> std::optional<double> {
    const auto it = m.params.find(w[1]);
    const double best = std::strtod(w[2].c_str(), nullptr);
    const double p = std::strtod(w[3].c_str(), nullptr);
    if (it == m.params.end() || it->second <= 0 || !(best > 0.0)) return std::nullopt;
    return 1.0 + p * std::fabs(std::log2(it->second / best));
  };
  for (size_t i = 0; i < lines.size(); ++i) {
    auto w = words_of(lines[i]);
    if (w.empty() || w[0].rfind("sim-", 0) != 0) continue;
    const std::string& key = w[0];
    if (key == "sim-x" && w.size() == 2) {
      const double f = std::strtod(w[1].c_str(), nullptr);
      if (f > 0.0 && std::isfinite(f)) {
        m.time_factor = f;
        have_factor = true;
      }
    } else if (key == "sim-cost" && w.size() == 2) {
      const double c = std::strtod(w[1].c_str(), nullptr);
      if (c > 0.0 && std::isfinite(c)) believed = c;
    } else if ((key == "sim-best" || key == "sim-cost-best") && w.size() == 4) {
      if (const auto p = penalty_of(w)) (key == "sim-best" ? penalty : believed_penalty)[w[1]] = *p;
    } else if (!condition_holds(w, m.params)) {
      continue;
    } else if (key == "sim-build-error" && !m.build_error) {
      std::string message;
      for (size_t k = 1; k < w.size(); ++k) message += (k > 1 ? " " : "") + w[k];
      m.build_error = fmt::format("candidate.sim:{}:1: error: {}\n", i + 1, message);
    } else if (key == "sim-wrong") {
      m.behaviour = SimModel::Behaviour::kWrong;
    } else if (key == "sim-crash") {
      m.behaviour = SimModel::Behaviour::kCrash;
    } else if (key == "sim-hang") {
      m.behaviour = SimModel::Behaviour::kHang;
    } else if (key == "sim-cheat") {
      m.cheats = true;
    }
  }
  if (!have_factor) {
    const uint64_t h = stable_hash_bytes(source.data(), source.size());
    m.time_factor = 0.8 + 0.4 * static_cast<double>(h >> 11) * 0x1.0p-53;
  }
  const std::string salted = "cost model\n" + std::string(source);
  const uint64_t error_bits = stable_hash_bytes(salted.data(), salted.size());
  const double error = 0.93 + 0.14 * static_cast<double>(error_bits >> 11) * 0x1.0p-53;
  double true_penalty = 1.0, cost_penalty = 1.0;
  for (const auto& [param, p] : penalty) {
    true_penalty *= p;
    if (!believed_penalty.contains(param)) cost_penalty *= p;
  }
  for (const auto& [param, p] : believed_penalty) cost_penalty *= p;
  m.static_cost = believed.value_or(m.time_factor) * cost_penalty * error;
  m.time_factor *= true_penalty;
  return m;
}

}  // namespace headway::sim
