#pragma once
// A value or a one-line error message, for inputs that a user can get wrong.
#include <stdexcept>
#include <string>
#include <utility>
#include <variant>

namespace headway::measure {

struct Error {
  std::string message;
};

// Holds either a T or an Error. value() requires ok(); error() requires !ok(); both throw
// std::logic_error when the requirement is broken.
template <class T>
class Expected {
 public:
  Expected(T value) : state_(std::move(value)) {}
  Expected(Error error) : state_(std::move(error)) {}

  bool ok() const { return state_.index() == 0; }
  explicit operator bool() const { return ok(); }

  const T& value() const& {
    if (!ok()) throw std::logic_error("Expected::value() on an error: " + error().message);
    return std::get<0>(state_);
  }
  T& value() & {
    if (!ok()) throw std::logic_error("Expected::value() on an error: " + error().message);
    return std::get<0>(state_);
  }
  T&& value() && {
    if (!ok()) throw std::logic_error("Expected::value() on an error: " + error().message);
    return std::get<0>(std::move(state_));
  }
  const Error& error() const {
    if (ok()) throw std::logic_error("Expected::error() on a value");
    return std::get<1>(state_);
  }

 private:
  std::variant<T, Error> state_;
};

}  // namespace headway::measure
