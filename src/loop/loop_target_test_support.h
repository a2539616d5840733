#pragma once
// The target the loop's tests run on: the loop tests' target (src/targets/testing), made through
// the registry by name and used through the Target interface alone. It registers itself when the
// test binary starts; its candidates' lines and toolchain options are its docs (Target::docs).
#include <memory>
#include <stdexcept>
#include <string>
#include <string_view>

#include "targets/registry/registry.h"
#include "targets/target.h"

namespace headway::loop {

inline constexpr std::string_view kLoopTarget = "loop-test";

// The loop tests' target with `toolchain` selected (empty: its default). Never null.
inline std::unique_ptr<targets::Target> make_loop_target(const std::string& toolchain = "") {
  auto target = targets::make_target(kLoopTarget, toolchain);
  if (!target) throw std::logic_error("the loop tests' target is not registered in this binary");
  return target;
}

}  // namespace headway::loop
