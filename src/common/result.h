#pragma once
// headway's one way to report an expected failure: a Result<T> holds a value or an Error, and an
// Error carries a code from a small fixed set and a one-line message. Every layer returns it for
// failures a caller is expected to handle (a missing workspace, a newer schema, a status the life
// cycle forbids, a malformed file); bugs throw instead. Outcomes of a test or a check (FASTER,
// SLOWER, a wrong kernel) are values, not Errors.
#include <stdexcept>
#include <string>
#include <string_view>
#include <utility>
#include <variant>

namespace headway {

// What kind of failure an Error is. Each code names the exit status the command line gives it
// (docs/CLI.md, "Exit statuses").
enum class ErrorCode {
  kInvalidInput,  // the user's input is wrong: an argument, a file's contents, a source (exit 2)
  kNotFound,      // something the user named does not exist: a workspace, a kernel, a node (exit 2)
  kConflict,  // the state forbids it now: already exists, already running, a finished node (exit 2)
  kEnvironment,  // the machine lacks something: a compiler, a device, a file it cannot read (exit
                 // 3)
  kDatabase,     // the workspace database cannot be opened, read or migrated (exit 3)
};

// "invalid input", "not found", ...: for messages and tests.
std::string_view error_code_name(ErrorCode code);

struct Error {
  ErrorCode code;
  std::string message;
};

inline Error invalid_input(std::string message) {
  return {ErrorCode::kInvalidInput, std::move(message)};
}
inline Error not_found(std::string message) { return {ErrorCode::kNotFound, std::move(message)}; }
inline Error conflict(std::string message) { return {ErrorCode::kConflict, std::move(message)}; }
inline Error environment_error(std::string message) {
  return {ErrorCode::kEnvironment, std::move(message)};
}
inline Error database_error(std::string message) {
  return {ErrorCode::kDatabase, std::move(message)};
}

// Holds either a T or an Error. value() (and * and ->) require ok(); error() requires !ok(); both
// throw std::logic_error when the requirement is broken.
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
    if (!ok())
      throw std::logic_error("Result::value() on an error: " + std::get<1>(state_).message);
    return state_;
  }
  const std::variant<T, Error>& checked() const {
    if (!ok())
      throw std::logic_error("Result::value() on an error: " + std::get<1>(state_).message);
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
  Error error_{ErrorCode::kInvalidInput, {}};
  bool ok_ = true;
};

using Status = Result<void>;

// An Error thrown, for a caller that cannot handle the failure where it happens (a verb's input,
// the loop's writes to its workspace). The command line maps its code to the exit status.
class Failure : public std::runtime_error {
 public:
  explicit Failure(Error error) : std::runtime_error(error.message), code_(error.code) {}
  ErrorCode code() const { return code_; }

 private:
  ErrorCode code_;
};

// Throws a Failure carrying the error's code and message.
[[noreturn]] inline void fail_with(Error error) { throw Failure(std::move(error)); }

// The value of `result`, or a Failure with its error, the message after "<context>: " when a
// context is given.
template <class T>
T value_or_fail(Result<T> result, std::string_view context = {}) {
  if (!result) {
    Error error = result.error();
    if (!context.empty()) error.message = std::string(context) + ": " + error.message;
    fail_with(std::move(error));
  }
  return std::move(result).value();
}
inline void value_or_fail(const Status& status, std::string_view context = {}) {
  if (!status) {
    Error error = status.error();
    if (!context.empty()) error.message = std::string(context) + ": " + error.message;
    fail_with(std::move(error));
  }
}

}  // namespace headway
