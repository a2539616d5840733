#pragma once
// A value or a one-line error message, for failures a caller is expected to handle (a missing
// workspace, a newer schema, a status the life cycle forbids). Bugs throw instead.
#include <stdexcept>
#include <string>
#include <utility>
#include <variant>

namespace headway::store {

struct Error {
  std::string message;
};

// Holds either a T or an Error. value() requires ok(); error() requires !ok(); both throw
// std::logic_error when the requirement is broken.
template <class T>
class [[nodiscard]] Result {
 public:
  Result(T value) : state_(std::in_place_index<0>, std::move(value)) {}
  Result(Error error) : state_(std::in_place_index<1>, std::move(error)) {}

  bool ok() const { return state_.index() == 0; }
  explicit operator bool() const { return ok(); }

  const T& value() const& { return std::get<0>(checked()); }
  T& value() & { return std::get<0>(checked()); }
  T&& value() && { return std::get<0>(std::move(checked())); }
  const T& operator*() const& { return value(); }
  T& operator*() & { return value(); }
  const T* operator->() const { return &value(); }
  T* operator->() { return &value(); }

  const Error& error() const {
    if (ok()) throw std::logic_error("Result::error() on a value");
    return std::get<1>(state_);
  }

 private:
  std::variant<T, Error>& checked() {
    if (!ok()) throw std::logic_error("Result::value() on an error: " + std::get<1>(state_).message);
    return state_;
  }
  const std::variant<T, Error>& checked() const {
    if (!ok()) throw std::logic_error("Result::value() on an error: " + std::get<1>(state_).message);
    return state_;
  }

  std::variant<T, Error> state_;
};

// Success without a value, or an Error.
template <>
class [[nodiscard]] Result<void> {
 public:
  Result() = default;
  Result(Error error) : error_(std::move(error)), ok_(false) {}

  bool ok() const { return ok_; }
  explicit operator bool() const { return ok_; }
  const Error& error() const {
    if (ok_) throw std::logic_error("Result::error() on a success");
    return error_;
  }

 private:
  Error error_;
  bool ok_ = true;
};

using Status = Result<void>;

}  // namespace headway::store
