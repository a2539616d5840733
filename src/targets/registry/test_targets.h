#pragma once
// For tests: the targets they make by name through the registry and use through the Target
// interface alone. The built-in cpu target and its docs, made once per test binary and shared by
// every test file that only reads them; and the target the tests above the targets layer (the
// loop, knowledge) run on, which src/targets/testing registers when the test binary starts (its
// candidates' lines and toolchain options are its docs, Target::docs).
#include <memory>
#include <stdexcept>
#include <string>
#include <string_view>

#include "targets/registry/registry.h"

namespace headway::targets {

inline const Target& test_cpu_target() {
  static const std::unique_ptr<Target> target = make_target("cpu");
  return *target;
}

inline const TargetDocs& test_cpu_docs() {
  static const TargetDocs docs = test_cpu_target().docs();
  return docs;
}

inline constexpr std::string_view kTestTarget = "loop-test";

// The tests' target with `toolchain` selected (empty: its default). Never null.
inline std::unique_ptr<Target> make_test_target(const std::string& toolchain = "") {
  auto target = make_target(kTestTarget, toolchain);
  if (!target) throw std::logic_error("the tests' target is not registered in this binary");
  return target;
}

}  // namespace headway::targets
