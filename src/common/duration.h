#pragma once
// Durations as people write them on a command line.
#include <optional>
#include <string_view>

namespace headway {

// Parses "90", "90s", "12m", "1h", "1h30m", "2.5m" into seconds. nullopt for anything else,
// including zero, negative, empty or infinite values (digits past the range of a double).
std::optional<double> parse_duration_seconds(std::string_view text);

}  // namespace headway
