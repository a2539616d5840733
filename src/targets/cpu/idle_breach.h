#pragma once
// Whether a runner child is idle right after a call: no message it was not asked for, and no
// thread of it still working. Work a candidate does outside its calls (a thread left running)
// is a breach of the rules of timing, in a timed session and in a check alike.
#include <optional>
#include <string>

#include "targets/cpu/runner_host.h"

namespace headway::cpu {

// Why `child` is not idle right after a call (a message it was not asked for, or a thread still
// running a few milliseconds later), or nullopt when it is.
std::optional<std::string> idle_breach(RunnerChild& child);

}  // namespace headway::cpu
