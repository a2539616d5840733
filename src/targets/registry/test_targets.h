#pragma once
// For tests: the built-in cpu target and its docs, made once per test binary and shared by every
// test file that only reads them.
#include <memory>

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

}  // namespace headway::targets
