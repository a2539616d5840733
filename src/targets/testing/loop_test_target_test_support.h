#pragma once
// For tests of what sits above the Target interface (the loop, knowledge, floor facts): a small
// in-process target, whose candidates say in plain lines how they behave, so that the whole loop
// (register, screen, race, acceptance test, rules, resume) runs with no compiler and no timing. It
// is a target like the others, so it lives with them and builds on their shared helpers (error
// diagnostics, fact names, the simulated device, toolchain options). The tests make it through the
// registry (targets/registry/registry.h) under kLoopTestTargetName and use it through the Target
// interface only. Everything it does is a deterministic function of sources, seeds and its
// toolchain spec.
//
// Times: a kernel's baseline takes 6 times its memory floor, the time to move its bytes at the
// target's one chip fact, a read bandwidth of 50 GB/s (floor_facts, measure_facts). A reading is
// the candidate's true time with log-normal noise of coefficient 1%; the acceptance test pairs
// head and candidate on a statistics::SimDevice. Every reading counts against the toolchain's
// budget (below), sessions and paired devices alike.
//
// Artifacts are kept in memory (their path is empty); their meta holds what the check and the
// device read: "time" (the factor over the baseline), "fails" ("wrong", "crash", "hang"; "" when
// the candidate runs correctly) and "cheats".
//
// The design library (design_files) is the same three designs for every kernel: "blocked" (P_BLOCK
// 1 2 4 8, fastest at 4), "threaded" (the fastest: P_THREADS 1 2 4 and P_CHUNK 8 16 32, fastest
// at 4 and 16, wrong at P_CHUNK=32) and "wide" (P_UNROLL 1 2), which never builds: its error is
// "'wide_lanes' was not declared in this scope".
#include <memory>
#include <string>
#include <string_view>

#include "targets/registry/test_targets.h"
#include "targets/target.h"

namespace headway::targets::testing {

inline constexpr std::string_view kLoopTestTargetName = targets::kTestTarget;

// The target's documentation (Target::docs gives it): its candidates and toolchains.
inline constexpr std::string_view kLoopTestTargetFormat = R"(# The loop's test target

A candidate is text, read line by line:

- `// ...`: a comment (a design's header, a label).
- `#define P_NAME v`: a parameter's value, as the design library writes parameters.
- `time: F`: the candidate takes F (> 0) times the kernel's baseline time; 1 without this line.
- `one-core: F`: on one core (Target::time_on_one_core, which `:host=shared` below allows; its
  sessions, not its paired devices) it takes F (> 0) times its time; 1 without this line.
- `scale: P_NAME v1=f1 v2=f2 ...`: its time is multiplied by f when P_NAME is v (a value not
  listed: 1).
- `static-cost: C`: the target's static cost of the candidate (Target::static_cost) is C (> 0);
  without this line it has none. The baselines' is 1.
- `build-error: MESSAGE`: it does not build; the diagnostic is
  `candidate:LINE:1: error: MESSAGE`.
- `fails: wrong`, `fails: crash`, `fails: hang`: it builds and fails its check (an incorrect
  output, a crash, a time-out).
- `cheats: yes`: it passes its check and reads as fast as its time says, but the verification of
  its timed calls finds it out: a session's verify_arms names it, a paired device's verify_arms
  throws statistics::ArmDisqualified. `cheats: when-paired`: only a paired device's finds it out
  (a fault that shows only when timed against another candidate, as in an acceptance test).

`build-error`, `fails` and `cheats` may end in `if P_NAME=v`: the line then holds only when the
parameter has that value. Any other line does not build (`unknown line`), so that a mistyped
candidate is seen as one.

The toolchain spec is a name, `test-1` by default; one that starts with `missing` is not found.
It may go on with options, each `:key=value`: `:requires=EXT` makes the `threaded` design need the
instruction-set extension EXT (a `// requires: EXT` line: the library proposes it only where the
fact `isa.EXT` is 1), `:stop-after=N` makes the device serve N readings, over every session and paired
device of the target, and every later one throws targets::DeviceStopped, `:truth=hidden` keeps
its true times to itself (Target::true_seconds gives none, as a real device's would),
`:host=shared` makes it time on this machine's shared cores (Target::times_on_host), so that its
floor facts are measured around each timing (targets/floor_bracket.h),
`:baseline-cheats=KERNEL` and `:baseline-cheats-paired=KERNEL` make that kernel's baseline cheat
(`cheats: yes`, `cheats: when-paired`), `:baseline-broken=KERNEL` makes it not build (`build-error:
'broken_baseline' was not declared in this scope`), and
`:bandwidths=B1,B2,...` makes its measurements of the read bandwidth give B1, B2, ... GB/s in turn,
starting over after the last (`:bandwidths=none`: they measure nothing), and `:decodes=D1,D2,...`
adds a decode ceiling (`decode_ceiling.f8`, a floor fact then) of D1, D2, ... GB/s in turn, each
kernel's instruction floor its bytes at that rate; it is measured only when asked for (a floor
recheck measures the memory floor's bandwidth alone). Timings do not change with either.
`:models=M1,M2,...` names its devices' models (Target::device_models; device_model is M1): a
measurement of the facts on the k-th model gives the k-th bandwidth of `:bandwidths`, every time.
)";

// Registers the target's maker under kLoopTestTargetName (once per process; later calls do
// nothing). Thread-safe. The test binary calls it as it starts, so tests above the targets layer
// make the target by name (targets::make_target) without this header.
void register_loop_test_target();

// Registers the target, then makes one through the registry with `toolchain` selected (empty:
// "test-1"). Never null.
std::unique_ptr<targets::Target> make_loop_test_target(const std::string& toolchain = "");

}  // namespace headway::targets::testing
