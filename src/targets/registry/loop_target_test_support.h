#pragma once
// The loop tests' target (src/targets/testing) by name, for tests above the targets layer (the
// loop, knowledge): made through the registry and used through the Target interface alone. It
// registers itself when the test binary starts; its candidates' lines and toolchain options are
// its docs (Target::docs).
#include <memory>
#include <stdexcept>
#include <string>
#include <string_view>

#include "targets/registry/registry.h"
#include "targets/target.h"

namespace headway::targets {

inline constexpr std::string_view kLoopTestTarget = "loop-test";

// The loop tests' target with `toolchain` selected (empty: its default). Never null.
inline std::unique_ptr<Target> make_loop_target(const std::string& toolchain = "") {
  auto target = make_target(kLoopTestTarget, toolchain);
  if (!target) throw std::logic_error("the loop tests' target is not registered in this binary");
  return target;
}

}  // namespace headway::targets
