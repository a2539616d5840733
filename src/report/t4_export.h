#pragma once
// The tested configurations of a run in the T4 autotuning results format (schema version 1.0.0)
// that Kernel Tuner and KTT share: {"schema_version": "1.0.0", "results": [...]}, one result per
// Design Tree node that left the proposed state. A result's configuration is the kernel, the
// node, the design and its parameters; its times.runtimes are every reading of the node in ms
// (races and acceptance tests); its invalidity says why it never got a time ("compile",
// "correctness", "runtime", "timeout", "constraints") or "correct"; its measurements hold the
// median time (ms) and the node's status.
#include <nlohmann/json.hpp>

#include "report/report_model.h"

namespace headway::report {

inline constexpr const char* kT4SchemaVersion = "1.0.0";

nlohmann::json to_t4(const Report& report);

// The T4 invalidity of a node status: build-failed "compile", incorrect "correctness", crashed
// and cheated "runtime", timed-out "timeout", lint-rejected "constraints", any other "correct".
std::string t4_invalidity(trees::NodeStatus status);

}  // namespace headway::report
