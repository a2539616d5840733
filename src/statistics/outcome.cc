#include "statistics/outcome.h"

namespace headway::statistics {

std::string_view to_string(Outcome outcome) {
  switch (outcome) {
    case Outcome::kFaster:
      return "FASTER";
    case Outcome::kSlower:
      return "SLOWER";
    case Outcome::kSame:
      return "SAME";
    case Outcome::kInconclusive:
      return "INCONCLUSIVE";
  }
  return "INCONCLUSIVE";
}

std::optional<Outcome> parse_outcome(std::string_view text) {
  for (Outcome o : kAllOutcomes) {
    if (to_string(o) == text) return o;
  }
  return std::nullopt;
}

}  // namespace headway::statistics
