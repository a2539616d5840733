#pragma once
// One piece of a run's device work as a job of its device pool (pool/device_pool.h), for targets
// whose device work is done by headway itself (cpu, cuda): `headway device-job --request JSON`,
// started by a pool's worker on its node, makes the target and the kernel there, runs the piece
// on that node's device with the target's own code (sandbox and checks included) and prints one
// JSON reply. The run's side, which makes the requests and reads the replies, is
// remote_device.h. Artifacts, spec files and the headway binary travel by path: they must be on
// a filesystem the node shares with the run.
//
// A request is an object: "target", "toolchain" (the target's spec), "sandbox_disabled",
// "one_core", "kernel" ({"name"} for a built-in; a spec's adds "spec", its file, and
// "shape_set"), "artifacts" ([{"id", "path", "meta"}]), "seed", "op" and the op's own fields:
//   check         "check_seed" (absent: fresh inputs), "call_timeout" -> {"check": outcome}
//   readings      "rounds": [[arm, ...], ...], each round's arms in the order read; afterwards
//                 every arm still in is verified -> {"readings": [[s, ...] per arm], "out": [why
//                 per arm, "" while in], "breach": [bool per arm], "accounting"}
//   pairs         artifacts [head, candidate], "firsts": ["head" | "candidate", ...]; each pair
//                 its first arm then the other, then both arms verified -> {"pairs": [[first s,
//                 second s], ...], "stop": null | {"kind": "disqualified" | "failed", "arm",
//                 "reason"} (after the pairs listed), "verified": [head, candidate] (-1: not
//                 counted), "accounting"}
//   confirm       artifacts [head, candidate], "readings": n -> {"confirmed": k, "stop",
//                 "verified", "accounting"}
//   side_by_side  "readings": n -> {"timings": [...]}
//   facts         "readings", "noise_repeats", "max_threads", "only" -> {"facts": [...]}
//   model         nothing more -> {} (the reply's "device" names the node's model)
// A request may carry "model": the device model (Target::device_model, or $HEADWAY_DEVICE_MODEL
// on the node) its work is pinned to; a node of another model runs nothing and replies {"error",
// "other_model": true}. Every reply has "device": {"host", "model"}. A reply {"error": why,
// "unavailable": true} says the node has no usable device (targets::DeviceUnavailable);
// {"error", "stopped": true} that the device stopped (targets::DeviceStopped).
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "targets/target.h"

namespace headway::remote {

nlohmann::json artifact_to_json(const targets::Artifact& artifact);
targets::Artifact artifact_from_json(const nlohmann::json& json);
nlohmann::json check_to_json(const targets::CheckOutcome& outcome);
targets::CheckOutcome check_from_json(const nlohmann::json& json);
nlohmann::json timing_to_json(const targets::Timing& timing);
targets::Timing timing_from_json(const nlohmann::json& json);
nlohmann::json fact_to_json(const targets::ChipFact& fact);
targets::ChipFact fact_from_json(const nlohmann::json& json);

// What identifies `kernel` on another node: its name, and its spec's file and shape set when it
// is a spec on disk.
nlohmann::json kernel_to_json(const KernelContract& kernel);

// Runs `request` on `target` (made on this node with the request's toolchain; `kernel` is the
// request's, resolved by the caller; null only for facts) and returns the reply. Throws
// std::invalid_argument for a malformed request; the target's own failures are in the reply.
nlohmann::json run_device_job(targets::Target& target, const KernelContract* kernel,
                              const nlohmann::json& request);

}  // namespace headway::remote
