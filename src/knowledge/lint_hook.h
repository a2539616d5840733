#pragma once
// A lint hook: a reason to reject a candidate's source before it is built, or nullopt. The
// workspace's legality rules make one (rule_lint.h); the loop screens every candidate with one
// (loop/screen.h).
#include <functional>
#include <optional>
#include <string>

namespace headway::knowledge {

using LintHook = std::function<std::optional<std::string>(const std::string& source)>;

}  // namespace headway::knowledge
