#pragma once
// The options of a toolchain spec: a name, then `:key=value` options (`sim-1:stop-after=30`), as
// the simulated targets read them, and the identity those targets give such a toolchain.
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "targets/target.h"

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

// A simulated toolchain's identity: not found when `spec` starts with "missing" ("LABEL toolchain
// 'SPEC' not found"), else found as "LABEL toolchain SPEC" with the id "ID_PREFIX:SPEC".
ToolchainInfo simulated_toolchain(const std::string& spec, std::string_view label,
                                  std::string_view id_prefix);
// A spec with an option the target does not take: not found, the user's input, `why`.
ToolchainInfo refused_toolchain(std::string why);

}  // namespace headway::targets
