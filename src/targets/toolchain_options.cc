#include "targets/toolchain_options.h"

#include <fmt/format.h>

#include <charconv>

namespace headway::targets {

std::vector<ToolchainOption> toolchain_options(std::string_view spec) {
  std::vector<ToolchainOption> options;
  for (size_t at = spec.find(':'); at != std::string_view::npos;) {
    const size_t next = spec.find(':', at + 1);
    const std::string_view text =
        spec.substr(at + 1, next == std::string_view::npos ? next : next - at - 1);
    at = next;
    const size_t eq = text.find('=');
    options.push_back({std::string(text.substr(0, eq)),
                       eq == std::string_view::npos ? "" : std::string(text.substr(eq + 1)),
                       std::string(text)});
  }
  return options;
}

std::optional<int64_t> count_value(std::string_view value) {
  int64_t n = 0;
  const auto [end, ec] = std::from_chars(value.data(), value.data() + value.size(), n);
  if (ec != std::errc() || end != value.data() + value.size() || n < 1) return std::nullopt;
  return n;
}

ToolchainInfo simulated_toolchain(const std::string& spec, std::string_view label,
                                  std::string_view id_prefix) {
  ToolchainInfo info;
  if (spec.rfind("missing", 0) == 0) {
    info.error = fmt::format("{} toolchain '{}' not found", label, spec);
    return info;
  }
  info.found = true;
  info.version = fmt::format("{} toolchain {}", label, spec);
  info.id = fmt::format("{}:{}", id_prefix, spec);
  return info;
}

ToolchainInfo refused_toolchain(std::string why) {
  ToolchainInfo info;
  info.error = std::move(why);
  info.error_code = ErrorCode::kInvalidInput;
  return info;
}

}  // namespace headway::targets
