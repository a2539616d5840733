#pragma once
// The options of a toolchain spec: a name, then `:key=value` options (`sim-1:stop-after=30`), as
// the simulated targets read them.
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace headway::targets {

struct ToolchainOption {
  std::string key;
  std::string value;  // after the first '='; empty without one
  std::string text;   // the option as written, for messages
  bool operator==(const ToolchainOption&) const = default;
};

// Each option after the spec's name, in order; an empty option (`::`) has an empty key. None when
// the spec has no ':'.
std::vector<ToolchainOption> toolchain_options(std::string_view spec);

// An option's value as a whole number of at least 1 (`stop-after=30`); nullopt for anything else.
std::optional<int64_t> count_value(std::string_view value);

}  // namespace headway::targets
