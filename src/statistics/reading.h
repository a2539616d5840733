#pragma once
// One timed run of one arm, as logged.
#include <cstdint>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <string_view>

#include "common/result.h"

namespace headway::statistics {

enum class Arm { kHead, kCandidate };

// "head", "candidate".
std::string_view to_string(Arm arm);
std::optional<Arm> parse_arm(std::string_view text);
Arm other(Arm arm);

struct Reading {
  std::string kernel;
  std::string node;
  int64_t test_id = 0;  // one acceptance test (decision)
  int pair_index = 0;   // 0-based pair within the test
  int position = 0;     // 0: ran first in its pair, 1: ran second
  Arm arm = Arm::kHead;
  int64_t start_ns = 0;  // device clock when the run started
  double seconds = 0.0;
  nlohmann::json clock;  // whatever clock or frequency information the target reports

  bool operator==(const Reading&) const = default;
};

// JSON object with keys kernel, node, test_id, pair, position, arm, start_ns, seconds, clock.
nlohmann::json to_json(const Reading& reading);
// The inverse of to_json; an error names the first missing or mistyped key.
Result<Reading> reading_from_json(const nlohmann::json& object);

}  // namespace headway::statistics
