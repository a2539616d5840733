#pragma once
// The four results of an acceptance test.
#include <array>
#include <optional>
#include <string_view>

namespace headway::statistics {

enum class Outcome { kFaster, kSlower, kSame, kInconclusive };

inline constexpr std::array<Outcome, 4> kAllOutcomes{Outcome::kFaster, Outcome::kSlower,
                                                     Outcome::kSame, Outcome::kInconclusive};

// "FASTER", "SLOWER", "SAME", "INCONCLUSIVE".
std::string_view to_string(Outcome outcome);

// The inverse of to_string (exact, upper case); nullopt for anything else.
std::optional<Outcome> parse_outcome(std::string_view text);

}  // namespace headway::statistics
