#pragma once
// For tests: an environment variable set or unset for one scope, restored after.
#include <stdlib.h>

#include <optional>
#include <string>

namespace headway::testing {

class ScopedEnv {
 public:
  // `value` null: unset for the scope.
  ScopedEnv(const char* name, const char* value) : name_(name) {
    if (const char* old = getenv(name)) old_ = old;
    value ? setenv(name, value, 1) : unsetenv(name);
  }
  ScopedEnv(const ScopedEnv&) = delete;
  ScopedEnv& operator=(const ScopedEnv&) = delete;
  ~ScopedEnv() { old_ ? setenv(name_, old_->c_str(), 1) : unsetenv(name_); }

 private:
  const char* name_;
  std::optional<std::string> old_;
};

}  // namespace headway::testing
