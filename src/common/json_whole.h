#pragma once
// Integers read from JSON that headway did not just write itself (files a user edits, files
// another process left). nlohmann's get<integer type>() converts any number, a float out of the
// type's range included, and that conversion is undefined behaviour.
#include <cstdint>
#include <limits>
#include <nlohmann/json.hpp>
#include <string>
#include <type_traits>

namespace headway {

// Whether `value` is an integer (not a float, however whole) within T's range.
template <class T>
bool is_whole(const nlohmann::json& value) {
  static_assert(std::is_integral_v<T>);
  if (value.is_number_unsigned())
    return value.get<uint64_t>() <= static_cast<uint64_t>(std::numeric_limits<T>::max());
  if (!value.is_number_integer()) return false;
  const int64_t v = value.get<int64_t>();
  if constexpr (std::is_signed_v<T>) {
    return v >= static_cast<int64_t>(std::numeric_limits<T>::min()) &&
           (sizeof(T) >= sizeof(int64_t) ||
            v <= static_cast<int64_t>(std::numeric_limits<T>::max()));
  } else {
    return v >= 0 &&
           (sizeof(T) >= sizeof(int64_t) ||
            static_cast<uint64_t>(v) <= static_cast<uint64_t>(std::numeric_limits<T>::max()));
  }
}

// `value` as T; throws nlohmann::json::type_error, as a mistyped get<T>() does, where it is not
// is_whole<T>.
template <class T>
T whole(const nlohmann::json& value) {
  if (!is_whole<T>(value)) {
    throw nlohmann::json::type_error::create(
        302, "expected a whole number in range, got " + value.dump(), &value);
  }
  return value.get<T>();
}

}  // namespace headway
