#pragma once
// The verbs' --json output: a value that may be absent is written as JSON null.
#include <nlohmann/json.hpp>
#include <optional>

namespace headway::cli {

// The value, or null when there is none.
template <typename T>
nlohmann::json or_null(const std::optional<T>& value) {
  return value ? nlohmann::json(*value) : nlohmann::json(nullptr);
}

}  // namespace headway::cli
